/**
 * The runs a PTC service has in flight in its own process (`isolation: 'inline'`, SPEC S9.1): the
 * service's dispose stops them, as the isolate supervisor's dispose stops the worker process's,
 * and they end `cancelled` naming the dispose (`disposedEnding`), unless their caller had
 * cancelled first.
 */
import type { IsolateRunRequest, IsolateRunResult } from './isolate/isolate-contract.ts'
import { disposedEnding } from './isolate/run-endings.ts'

/** See the file comment. */
export class InlineRuns {
  /** One controller a run, not AbortSignal.any over one long-lived signal: each signal that makes stays registered with its sources (three WeakRefs and their records a run). */
  readonly #runs = new Set<AbortController>()
  #stopped = false

  /** Stops every run in flight and every run started from now on. Idempotent. */
  stopAll(): void {
    this.#stopped = true
    for (const run of this.#runs) run.abort()
  }

  /**
   * Runs `request` with `runner` (`runInIsolate` on the service's pool), under a signal that the
   * caller's signal and {@link stopAll} both abort.
   * @throws what `runner` throws (the pool disposed under a run waiting for an isolate: `Ptc.run`
   *   says the service was disposed).
   */
  async run(request: IsolateRunRequest, runner: (request: IsolateRunRequest) => Promise<IsolateRunResult>): Promise<IsolateRunResult> {
    const run = new AbortController()
    const callerStop = (): void => run.abort()
    if (request.signal?.aborted || this.#stopped) run.abort()
    request.signal?.addEventListener('abort', callerStop, { once: true })
    this.#runs.add(run)
    try {
      const result = await runner({ ...request, signal: run.signal })
      return result.status === 'cancelled' && this.#stopped && !request.signal?.aborted ? { ...result, ...disposedEnding() } : result
    } finally {
      this.#runs.delete(run)
      request.signal?.removeEventListener('abort', callerStop)
    }
  }
}
