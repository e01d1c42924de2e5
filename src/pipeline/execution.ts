/**
 * The immutable execution of one tool call (SPEC S6.2, S6.3) and the caller's stop: the frozen
 * record every policy hook and the body receive, the fusion of the caller's signal into whatever
 * signal a wrapper installed, and the race that ends every wait of the pipeline on the caller's stop.
 */
import type { ToolExecution } from '../tools/types.ts'
import { raceAbort } from './race-abort.ts'
import { isThenable } from './thenable.ts'

/** The signal of a call made without one: never aborts. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal

/** Sentinel thrown inside the pipeline's waits when the caller stops the call. */
export const CANCELLED = Symbol('cancelled')

/**
 * What a new {@link Execution} is made of; `callerSignal` is {@link NEVER_ABORTED} for a call
 * without one. `stopSignal` is what ends the call: the caller's signal, joined with the host's
 * stop (the registry's), so a call still open when its host is gone ends `cancelled`.
 */
export interface ExecutionFields {
  readonly callId: string
  readonly name: string
  readonly args: unknown
  readonly agent: string | undefined
  readonly parentToken: symbol | undefined
  readonly callerSignal: AbortSignal
  readonly stopSignal: AbortSignal
  readonly timeoutMs: number | undefined
}

/**
 * The execution record (S6.2, S6.3): a frozen instance, so `callId`, `name`, `arguments`, `agent`,
 * `token`, `parentToken`, `callerSignal` and `timeoutMs` cannot be reassigned, deleted or
 * redefined and nothing can be added. `signal` is an accessor over a private field (private
 * fields stay writable on a frozen object): a wrapper may replace it with another AbortSignal,
 * never remove it, and the pipeline re-fuses the caller's signal before the body.
 */
export class Execution implements ToolExecution {
  readonly callId: string
  readonly name: string
  readonly arguments: Readonly<unknown>
  readonly agent: string | undefined
  readonly token: symbol
  readonly parentToken: symbol | undefined
  readonly callerSignal: AbortSignal
  readonly timeoutMs: number | undefined
  #signal: AbortSignal
  readonly #stop: AbortSignal
  #cancelNote: string | undefined

  constructor(fields: ExecutionFields) {
    this.callId = fields.callId
    this.name = fields.name
    this.arguments = fields.args as Readonly<unknown>
    this.agent = fields.agent
    this.token = Symbol(`tool-call:${fields.name}`)
    this.parentToken = fields.parentToken
    this.callerSignal = fields.callerSignal
    this.timeoutMs = fields.timeoutMs
    this.#signal = this.#stop = fields.stopSignal
    Object.freeze(this)
  }

  get signal(): AbortSignal {
    return this.#signal
  }

  set signal(next: AbortSignal) {
    // S3: a wrapper may replace the signal, never remove it.
    if (!(next instanceof AbortSignal)) throw new TypeError('exec.signal can be replaced by another AbortSignal, never removed')
    this.#signal = next
  }

  /** S6.3: fuse the caller's signal (and the host's stop) into whatever a wrapper installed; returns the body's signal. */
  static fuseCallerSignal(execution: Execution): AbortSignal {
    const stop = execution.#stop
    if (execution.#signal !== stop && stop !== NEVER_ABORTED) execution.#signal = AbortSignal.any([execution.#signal, stop])
    return execution.#signal
  }

  /** What ends every wait of the pipeline for this call: the caller's stop or the host's (see {@link ExecutionFields}). */
  static stopOf(execution: Execution): AbortSignal {
    return execution.#stop
  }

  /**
   * A body's account of what it had done when its caller stopped it, one sentence or more, for
   * the cancellation result (S5.1, S6.3: the stop ends the pipeline's wait for the body, so only
   * what the body says while the stop is handled reaches it; `run_code` names the calls its
   * script had in flight). Set from the body's own abort listener; the last one stands. Taken
   * only once the caller's stop has come (a wrapper aborting its own signal to retry leaves no
   * note behind); a `ToolExecution` that is not the pipeline's record is ignored.
   */
  static noteCancel(execution: unknown, note: string): void {
    if (execution instanceof Execution && execution.#stop.aborted) execution.#cancelNote = note
  }

  /** The note {@link noteCancel} left, if any. */
  static cancelNoteOf(execution: Execution): string | undefined {
    return execution.#cancelNote
  }
}
// A listener must not be able to swap the accessor for every execution.
Object.freeze(Execution.prototype)

const cancel = (): never => {
  throw CANCELLED
}

/**
 * S6.3: the caller's stop ends every wait of the pipeline (policy, approval, projectContent,
 * post-execute), not only the body's: a listener or an approval prompt that never answers cannot
 * keep a stopped call alive. Rejects with {@link CANCELLED} on the stop. A synchronous answer is
 * no wait: it is returned as is (no promise, no abort listener: a call from code has a caller
 * signal, and adding and removing a listener for each synchronous policy answer cost more than
 * the policies), or {@link CANCELLED} is thrown when the caller has already stopped.
 * @throws CANCELLED for a synchronous answer after the caller's stop.
 */
export function untilCallerStop<T>(work: T | Promise<T>, callerSignal: AbortSignal): T | Promise<T> {
  if (callerSignal === NEVER_ABORTED) return work
  if (!isThenable(work)) {
    if (callerSignal.aborted) throw CANCELLED
    return work
  }
  return raceAbort(Promise.resolve(work), callerSignal, cancel)
}

/**
 * What ends the pipeline's waits for `execution` (S6.3), for a listener that sees only the
 * `ToolExecution` (an `approval/request` responder, the journal): {@link Execution.stopOf} for a
 * call of the pipeline, else its `callerSignal` when that is an AbortSignal, else `undefined` (a
 * hand-made request to `ctx.approval.request`). Never throws: a listener may pass on a Proxy or an
 * object with a throwing `callerSignal` getter, and `instanceof` or the read would throw; then
 * the next readable one stands (a Proxy of a pipeline call has no private stop, so its
 * `callerSignal`), else `undefined`.
 */
export function stopSignalOf(execution: unknown): AbortSignal | undefined {
  try {
    if (execution instanceof Execution) return Execution.stopOf(execution)
  } catch {
    // A Proxy: its traps threw, or it wraps an Execution whose private stop it cannot reach.
  }
  try {
    const callerSignal = (execution as { callerSignal?: unknown } | null | undefined)?.callerSignal
    return callerSignal instanceof AbortSignal ? callerSignal : undefined
  } catch {
    return undefined
  }
}

/** The caller's stop ends the wait even if a body or wrapper ignores its signal (S6.3). */
export function raceCallerStop<T>(work: Promise<T>, callerSignal: AbortSignal): Promise<T> {
  if (callerSignal === NEVER_ABORTED) return work
  return raceAbort(work, callerSignal, cancel)
}
