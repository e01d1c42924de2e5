/**
 * Waiting for work that may never settle (a tool module's top-level await or `apply`), without
 * letting the process end as if it had finished: when Node's event loop runs dry while the work is
 * pending (`beforeExit`), nothing could ever settle it, so it fails instead.
 */

/**
 * `work`, or a rejection with `stalled()` when the event loop runs dry while it is pending. Without
 * this, a command awaiting such work ends with exit code 0, having done nothing and said nothing.
 */
export async function unlessStalled<T>(work: PromiseLike<T>, stalled: () => Error): Promise<T> {
  let onIdle = () => {}
  const idle = new Promise<never>((_resolve, reject) => {
    // Rejected from an immediate, so the loop is alive again: Node emits `beforeExit` once more
    // when it next runs dry, for whatever waits after this (a dispose that stalls too).
    onIdle = () => void setImmediate(() => reject(stalled()))
  })
  process.once('beforeExit', onIdle)
  try {
    return await Promise.race([work, idle])
  } finally {
    process.off('beforeExit', onIdle)
  }
}
