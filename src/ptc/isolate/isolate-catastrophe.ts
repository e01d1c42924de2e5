/**
 * Process-wide record of isolated-vm "catastrophic" errors (its `onCatastrophicError`). After one,
 * v8 has lost control of an isolate: its thread may spin forever and the process may not even
 * exit cleanly. isolated-vm's advice is to stop serving, finish outstanding work and end the
 * process. Reproduced here: an object or Map grown past a 128 MB isolate's limit, and at once at
 * any limit a `concat` V8 must size past its own limits (test/fixtures/isolate-supervisor-catastrophe.ts,
 * the opt-in test in test/runtime/isolate-pool.test.ts). The remedy is `IsolateSupervisor` (the default
 * `PtcConfig.isolation: 'process'`): isolates live in a worker process, whose copy of this record
 * reports each catastrophe to the supervisor, which replaces and SIGKILLs that worker. With
 * `isolation: 'inline'` a deployment should listen here and restart the process.
 */

type CatastropheListener = (message: string) => void

const listeners = new Set<CatastropheListener>()
const messages: string[] = []

/** Registers `listener` for every future catastrophic error; returns its disposer. */
export function onIsolateCatastrophe(listener: CatastropheListener): () => void {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

/** Messages of the catastrophic errors seen so far in this process (empty when healthy). */
export function isolateCatastrophes(): readonly string[] {
  return messages
}

/** Called from the isolate's `onCatastrophicError`; listener failures are isolated. */
export function reportIsolateCatastrophe(message: string): void {
  messages.push(message)
  for (const listener of listeners) {
    try {
      listener(message)
    } catch {
      // An observer's failure must not hide the catastrophe from the others.
    }
  }
}
