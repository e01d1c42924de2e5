/**
 * The host's side of one run in the isolate worker process (SPEC S9.1–S9.3; issue 16): runs the
 * host's `dispatch` for each call the worker forwards and counts them here, so `toolCalls` stays
 * true after a worker crash or a timeout; and keeps the watchdog that ends the run when the
 * worker does not answer by the deadline (plus grace) or does not confirm a cancel, without ever
 * waiting for the worker. What happens to the worker then is the supervisor's business.
 */
import { describeThrown } from '../../errors/describe-thrown.ts'
import type { IsolateRunRequest, IsolateRunResult, IsolateToolOutcome } from './isolate-contract.ts'
import type { ParentMessage, WorkerAnswerMessage, WorkerDispatchMessage } from './worker-messages.ts'
import { cancelledError, unansweredDeadlineEnding, type RunEnding } from './run-endings.ts'
import type { RunLimits } from './run-limits.ts'
import { mayHaveLeftCode } from './stuck-isolate.ts'

/**
 * How long in ms a cancel waits for a worker a step may be holding to confirm it (the step's
 * return, with the run's logs and warnings) before the run is answered without them.
 */
export const HELD_CANCEL_MS = 100

/** What a {@link SupervisedRun} needs from its supervisor. */
export interface SupervisedRunHooks {
  /** Sends one message to the run's worker at once; false when it cannot. */
  send(message: ParentMessage): boolean
  /** Queues one answer for the worker's end-of-turn batch; `soon`: the batch goes a microtask later (`TurnBatcher.push`). */
  answer(message: WorkerAnswerMessage, soon?: boolean): void
  /** The worker missed a deadline or a cancel: it must get no new runs and be replaced. */
  retire(reason: string): void
  /** The caller cancelled: true when a step may be holding the worker, whose replacement is then the worker's business (`cancelWhileHeld` in supervised-worker.ts). */
  cancelWhileHeld(): boolean
  /** The run has ended (after its result settled). */
  ended(run: SupervisedRun): void
}

/** Options of a {@link SupervisedRun}. Durations in ms. */
export interface SupervisedRunOptions {
  runId: string
  request: IsolateRunRequest
  limits: RunLimits
  /** `performance.now()` when the caller asked for the run (the result's `durationMs` counts from it). */
  startedAt: number
  /** Slack past the deadline, and for a cancel to be confirmed, before the watchdog acts. */
  graceMs: number
  hooks: SupervisedRunHooks
}

/** One run in a worker, from `start()` until its result settles; see the file comment. */
export class SupervisedRun {
  readonly runId: string
  /** The run's limits as its caller set them, which its endings name: the wall clock with the type-check's share (`checkMs`) back in. */
  readonly statedLimits: RunLimits
  /** Tool calls handed to the host's `dispatch` for this run. */
  toolCalls = 0
  ended = false
  /** Set as it ends when its code may still be running in the worker (`mayHaveLeftCode` in stuck-isolate.ts). */
  mayHaveLeftCode = false
  /** Settles once with the run's result; rejects only for an infrastructure failure in the worker. */
  readonly result: Promise<IsolateRunResult>
  readonly #options: SupervisedRunOptions
  /** Names of the tool calls in flight, by pairing id. */
  readonly #calls = new Map<string, string>()
  /**
   * The signal of every call of the run, made with its first: it aborts when the run ends or is
   * cancelled, or when the worker ends a call (it does only as its run ends), so one a run does
   * what one a call did without its cost (issue 12).
   */
  #controller: AbortController | undefined
  readonly #timers: NodeJS.Timeout[] = []
  #onAbort: (() => void) | undefined
  /** The caller cancelled the run: no call of it starts any more. */
  #cancelled = false
  /** Names of the calls in flight when the host first aborted them (a cancel, the run's end): an ending of the host's own names them. */
  #stopped: readonly string[] = []
  #resolve!: (result: IsolateRunResult) => void
  #reject!: (error: Error) => void

  constructor(options: SupervisedRunOptions) {
    this.#options = options
    this.runId = options.runId
    this.statedLimits = { ...options.limits, wallClockMs: options.limits.wallClockMs + Math.round(options.request.checkMs ?? 0) }
    this.result = new Promise<IsolateRunResult>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
  }

  /** Sends the run to the worker and starts its watchdog (counted from now: the worker's own clock starts when it gets the run). */
  start(): void {
    const { request, limits, graceMs, hooks } = this.#options
    this.#timers.push(
      setTimeout(() => {
        // Timers run before the loop reads its sockets: if this host's thread was held up (a slow
        // synchronous tool), the worker's answer may be waiting unread. Judge after the read, so
        // a worker that did answer is neither blamed nor restarted (a review saw both).
        setImmediate(() => {
          if (this.ended) return
          // After a cancel the host has already stopped the calls (`#stopped`).
          this.end(unansweredDeadlineEnding(limits.wallClockMs + Math.round(request.checkMs ?? 0), this.#cancelled ? this.#stopped : [...this.#calls.values()]))
          hooks.retire(`a run's deadline passed without an answer`)
        })
      }, limits.wallClockMs + graceMs),
    )
    if (request.signal !== undefined) {
      this.#onAbort = () => {
        // The caller's cancel stops the run's calls here and now, not when the worker confirms it:
        // a call awaiting approval must not start if its approval lands before that (S8.2).
        this.#cancelled = true
        this.#abortCalls(new Error('run cancelled'))
        hooks.send({ type: 'cancel', runId: this.runId })
        // A step holding the worker reads the cancel when it returns: the run waits a moment for
        // its confirmation (which carries its logs and warnings), not graceMs.
        const held = hooks.cancelWhileHeld()
        this.#timers.push(
          setTimeout(() => {
            this.end({ status: 'cancelled', error: cancelledError() })
            if (!held) hooks.retire('a cancel was not confirmed in time')
          }, held ? Math.min(graceMs, HELD_CANCEL_MS) : graceMs),
        )
      }
      request.signal.addEventListener('abort', this.#onAbort, { once: true })
    }
    const sent = hooks.send({ type: 'run', runId: this.runId, js: request.js, toolNames: [...request.toolNames], limits, checkMs: request.checkMs ?? 0 })
    if (!sent) this.end({ status: 'error', error: { name: 'WorkerCrashError', message: 'the isolate worker process could not be reached; the run was stopped; the next run uses a fresh worker.' } })
  }

  /** Runs the host's `dispatch` for one call from the worker and queues its answer. */
  onDispatch(message: WorkerDispatchMessage): void {
    const { runId, pairingId } = message
    const { hooks, request } = this.#options
    if (this.ended || this.#cancelled) {
      hooks.answer({ type: 'answer', runId, pairingId, outcome: { ok: false, message: 'the run ended' } })
      return
    }
    this.#controller ??= new AbortController()
    this.#calls.set(pairingId, message.name)
    this.toolCalls++
    const answer = (fields: { outcome: IsolateToolOutcome } | { rejection: string }): void => {
      if (this.ended || !this.#calls.delete(pairingId)) return // Discarded: the run or the call is over.
      // The run's only call outstanding (a sequential step) is answered without waiting for the turn.
      hooks.answer({ type: 'answer', runId, pairingId, ...fields }, this.#calls.size === 0)
    }
    const call = { pairingId, name: message.name, argsJson: message.argsJson, signal: this.#controller.signal, answer: (result: IsolateToolOutcome) => answer({ outcome: plainOutcome(result) }) }
    let outcome: Promise<IsolateToolOutcome> | void
    try {
      outcome = request.dispatch(call)
    } catch (error) {
      return answer({ rejection: describeThrown(error) })
    }
    // A dispatch that returns nothing answers through `call.answer` (IsolateRunRequest.dispatch).
    if (outcome !== undefined) Promise.resolve(outcome).then(call.answer, (error: unknown) => answer({ rejection: describeThrown(error) }))
  }

  /** Whether the caller asked the run to stop (its signal aborted): a cancel it made keeps its own ending. */
  get cancelledByCaller(): boolean {
    return this.#options.request.signal?.aborted === true
  }

  /** The worker ended this call (its run is over): abort the host-side signal (its run's: the others end with it). */
  onAbortCall(pairingId: string): void {
    if (this.#calls.delete(pairingId)) this.#controller?.abort(new Error('run ended'))
  }

  /**
   * Ends the run once with the worker's result or an ending of our own; aborts its calls.
   * `toolCalls` is always the host's count.
   */
  end(ending: RunEnding | IsolateRunResult): void {
    if (!this.#finish(new Error(`run ended (${ending.status})`))) return
    const logs = 'logs' in ending ? ending.logs : []
    // A deadline's account names them. After a cancel, the calls the host stopped (it refuses any
    // the worker sends later, which the worker would count as running); otherwise the worker's
    // result names its own.
    const stoppedCalls = ending.deadline !== undefined ? [] : this.#cancelled || !('logs' in ending) ? this.#stopped : (ending.stoppedCalls ?? [])
    const { stoppedCalls: _workers, ...rest } = ending as IsolateRunResult
    this.mayHaveLeftCode = mayHaveLeftCode(ending)
    this.#resolve({ ...rest, ...(stoppedCalls.length > 0 && { stoppedCalls }), logs, toolCalls: this.toolCalls, durationMs: performance.now() - this.#options.startedAt })
    this.#options.hooks.ended(this)
  }

  /** Rejects the run once (the worker could not create an isolate: infrastructure). */
  fail(error: Error): void {
    if (!this.#finish(error)) return
    this.#reject(error)
    this.#options.hooks.ended(this)
  }

  #finish(reason: Error): boolean {
    if (this.ended) return false
    this.ended = true
    for (const timer of this.#timers) clearTimeout(timer)
    if (this.#onAbort !== undefined) this.#options.request.signal?.removeEventListener('abort', this.#onAbort)
    this.#abortCalls(reason)
    return true
  }

  #abortCalls(reason: Error): void {
    if (this.#calls.size > 0 && this.#stopped.length === 0) this.#stopped = [...this.#calls.values()]
    this.#controller?.abort(reason)
    this.#calls.clear()
  }
}

/** A plain copy of what `dispatch` resolved to; the worker's runner judges its shape. */
function plainOutcome(outcome: IsolateToolOutcome): IsolateToolOutcome {
  if (outcome === null || typeof outcome !== 'object') return { ok: false, message: 'the tool returned a malformed outcome' }
  const { ok, valueJson, message } = outcome as { ok?: unknown; valueJson?: unknown; message?: unknown }
  return { ok, valueJson, message } as IsolateToolOutcome
}
