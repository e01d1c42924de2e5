/**
 * The one way to stop waiting for work when a signal aborts (SPEC S6.3: the caller's stop ends
 * every wait; the isolate supervisor's wait for a worker; a job reader's wait for output). Only the
 * wait ends: the work itself goes on unless it honours the signal too.
 */

/**
 * Settles as `work` does, or, as soon as `signal` aborts (at once when it already has), with what
 * `onAbort` returns, rejecting when `onAbort` throws. The abort listener is removed when `work`
 * settles first. Without a signal, `work` is returned as is. Once the abort has won, a later
 * failure of `work` is nobody's to handle and is dropped: it never becomes an unhandled rejection,
 * which would end a Node process (a tool body that rejects as soon as its signal aborts, while
 * that abort ran inside the body's own first step, did so).
 */
export function raceAbort<T, A>(work: Promise<T>, signal: AbortSignal | undefined, onAbort: () => A): Promise<T | A> {
  if (signal === undefined) return work
  if (signal.aborted) {
    work.then(undefined, ignoreLateFailure)
    return new Promise<A>((resolve) => resolve(onAbort()))
  }
  return new Promise<T | A>((resolve, reject) => {
    const abort = () => {
      try {
        resolve(onAbort())
      } catch (error) {
        reject(error)
      }
    }
    signal.addEventListener('abort', abort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', abort)
        reject(error)
      },
    )
  })
}

function ignoreLateFailure(): void {}
