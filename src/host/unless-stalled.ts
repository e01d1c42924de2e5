/**
 * Waiting for work that may never settle (a tool module's top-level await or `apply`), without
 * letting the process end as if it had finished: when Node's event loop runs dry while the work is
 * pending (`beforeExit`), nothing could ever settle it, so it fails instead; and when something
 * else keeps the loop alive (a timer the module started), it fails at a time limit.
 */

/**
 * `work`, or a rejection with `stalled()` when the event loop runs dry while it is pending, or with
 * `late()` once `limitMs` (ms) have passed without it settling. Without this, a command awaiting
 * such work ends with exit code 0, having done nothing and said nothing, or never ends.
 */
export async function unlessStalled<T>(work: PromiseLike<T>, stalled: () => Error, limit?: { ms: number; late: () => Error }): Promise<T> {
  let onIdle = () => {}
  let timer: NodeJS.Timeout | undefined
  const idle = new Promise<never>((_resolve, reject) => {
    // Rejected from an immediate, so the loop is alive again: Node emits `beforeExit` once more
    // when it next runs dry, for whatever waits after this (a dispose that stalls too).
    onIdle = () => void setImmediate(() => reject(stalled()))
    // Unref'd: it never keeps the process alive by itself, and the idle case above still applies.
    if (limit !== undefined) timer = setTimeout(() => reject(limit.late()), limit.ms).unref()
  })
  process.once('beforeExit', onIdle)
  try {
    return await Promise.race([work, idle])
  } finally {
    clearTimeout(timer)
    process.off('beforeExit', onIdle)
  }
}
