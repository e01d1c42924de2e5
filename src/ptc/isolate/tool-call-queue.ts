/**
 * The tool calls of one isolate run (SPEC S9.1–S9.3): each `tools.name(args)` from the script is
 * checked (a visible tool, under `maxToolCalls`, arguments under `maxCrossingBytes`), queued FIFO,
 * handed to the host's `dispatch` with at most `maxCallsInFlight` pending and their arguments
 * within `maxCrossingBytes` together (one call may always go), and its outcome
 * settled back as a value or a `ToolCallError` message. Also keeps the time the run spent with a
 * call running or queued, for deadline messages.
 */
import { describeThrown } from '../../errors/describe-thrown.ts'
import type { IsolateRunRequest, IsolateToolCall, IsolateToolOutcome } from './isolate-contract.ts'
import type { RunLimits } from './run-limits.ts'

/**
 * The number of a call in its run (`IsolateToolCall.callId`) from its pairing id (`<runId>:<n>`),
 * or from any id that ends with one: the pipeline's id of a call from code (`bridge.ts`) is its
 * `run_code` call's id, a slash and its pairing id. `undefined` for an id that does not end so.
 */
export function callNumberOf(id: string): number | undefined {
  const digits = /:(\d{1,15})$/.exec(id)?.[1]
  return digits === undefined ? undefined : Number(digits)
}

/**
 * One accepted call, and what `dispatch` is handed for it. In flight it is a link of the queue's
 * list of running calls: a sequential script adds and removes one a call, and a `Map` rehashes
 * its table every few such pairs (issue 12: about 150 bytes of garbage a call). Its abort
 * controller is made only when a dispatcher reads `signal` (the isolate worker's never does).
 */
class QueuedCall implements IsolateToolCall {
  readonly callId: number
  readonly name: string
  readonly argsJson: string
  readonly pairingId: string
  readonly #settled: (call: QueuedCall, outcome: IsolateToolOutcome) => void
  #controller: AbortController | undefined
  #aborted: Error | undefined
  #answered = false
  previous: QueuedCall | undefined
  next: QueuedCall | undefined

  constructor(runId: string, callId: number, name: string, argsJson: string, settled: (call: QueuedCall, outcome: IsolateToolOutcome) => void) {
    this.callId = callId
    this.name = name
    this.argsJson = argsJson
    this.pairingId = `${runId}:${callId}`
    this.#settled = settled
  }

  answer(outcome: IsolateToolOutcome): void {
    if (this.#answered) return
    this.#answered = true
    this.#settled(this, outcome)
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted !== undefined) this.#controller.abort(this.#aborted)
    }
    return this.#controller.signal
  }

  abort(reason: Error): void {
    this.#aborted ??= reason
    this.#controller?.abort(reason)
  }
}

/** Options of a {@link ToolCallQueue}. */
export interface ToolCallQueueOptions {
  /** Prefix of every pairing id (`<runId>:<callId>`). */
  runId: string
  toolNames: readonly string[]
  limits: RunLimits
  dispatch: IsolateRunRequest['dispatch']
  /** Where outcomes go: `ok` with the value's JSON, or not with the `ToolCallError` message. Must not throw. */
  settle: (callId: number, ok: boolean, text: string) => void
}

/** One run's calls; see the file comment. After {@link close} nothing is dispatched or settled. */
export class ToolCallQueue {
  /** Calls handed to `dispatch`. */
  dispatched = 0
  readonly #options: ToolCallQueueOptions
  readonly #toolNames: ReadonlySet<string>
  /** The calls handed to `dispatch` and not yet settled, oldest first (see {@link QueuedCall}). */
  #oldest: QueuedCall | undefined
  #newest: QueuedCall | undefined
  #inFlightCount = 0
  /** Characters of the arguments' JSON of the calls in flight. */
  #inFlightChars = 0
  #queue: (QueuedCall | undefined)[] = []
  #queueHead = 0
  #accepted = 0
  #closed = false
  #busySince: number | undefined
  #busyMs = 0
  readonly #answered = (call: QueuedCall, outcome: IsolateToolOutcome): void => this.#done(call, outcome)
  #pumping = false

  constructor(options: ToolCallQueueOptions) {
    this.#options = options
    this.#toolNames = new Set(options.toolNames)
  }

  /** Time in ms with at least one call running or queued, up to now. */
  get busyMs(): number {
    return this.#busyMs + (this.#busySince === undefined ? 0 : performance.now() - this.#busySince)
  }

  /** Names of the calls running now, in dispatch order. */
  get running(): string[] {
    const names: string[] = []
    for (let call = this.#oldest; call !== undefined; call = call.next) names.push(call.name)
    return names
  }

  /** One call from the script (its arguments are untrusted: checked here). */
  accept(callId: unknown, name: unknown, argsJson: unknown): void {
    if (this.#closed) return // Late call: refused, dispatch is never called.
    if (typeof callId !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
    const { limits, settle } = this.#options
    if (!this.#toolNames.has(name)) return settle(callId, false, `there is no tool named "${name.slice(0, 100)}"`)
    if (this.#accepted >= limits.maxToolCalls) {
      return settle(callId, false, `tool call limit reached: a run may make at most ${limits.maxToolCalls} tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.`)
    }
    const bytes = utf8BytesOver(argsJson, limits.maxCrossingBytes)
    if (bytes !== undefined) {
      return settle(callId, false, `the arguments are too large: ${bytes} bytes of JSON, the limit is ${limits.maxCrossingBytes} bytes (maxCrossingBytes); this call was not made`)
    }
    this.#accepted++
    this.#busySince ??= performance.now()
    const call = new QueuedCall(this.#options.runId, callId, name, argsJson, this.#answered)
    // None waiting and room in flight (every sequential call): no trip through the queue.
    if (this.#queueHead === this.#queue.length && this.#mayDispatch(call)) return this.#dispatch(call)
    this.#queue.push(call)
    this.#pump()
  }

  /**
   * The run ended: abort every running call's signal with `reason`, drop the queue. Returns the ids
   * of the calls dropped from the queue, which were never handed to `dispatch` (not made), in
   * order; `[]` when called again.
   */
  close(reason: Error): number[] {
    if (this.#closed) return []
    this.#closed = true
    this.#busyMs = this.busyMs
    this.#busySince = undefined
    // Listed first: a call answered from its abort listener leaves the list as it is walked.
    const running: QueuedCall[] = []
    for (let call = this.#oldest; call !== undefined; call = call.next) running.push(call)
    for (const call of running) call.abort(reason)
    const notMade: number[] = []
    for (let index = this.#queueHead; index < this.#queue.length; index++) notMade.push(this.#queue[index]!.callId)
    this.#queue = []
    this.#queueHead = 0
    return notMade
  }

  /**
   * Every call in flight was never sent by its dispatcher: the isolate worker holds what a step
   * on its main thread sends until the step returns, and a limit ended the run in the step. Such
   * a step starts with no call in flight or queued (it answers the only one), so these are all
   * its own: they leave the books, are not counted as dispatched, and the time since they were
   * made is not time spent on calls.
   * @returns the tools of the calls withdrawn, in the order they were made
   */
  withdraw(): string[] {
    const withdrawn: string[] = []
    for (let call = this.#oldest; call !== undefined; call = this.#oldest) {
      withdrawn.push(call.name)
      this.#unlink(call)
      this.dispatched--
    }
    this.#busySince = undefined
    return withdrawn
  }

  /**
   * Dispatches queued calls while fewer than `maxCallsInFlight` are pending and the next one's
   * arguments fit, with theirs, in `maxCrossingBytes` (or none is pending).
   */
  #pump(): void {
    // A call answered while it is dispatched (a dispatcher that throws, or answers at once) comes
    // back here: the loop below goes on with the queue, instead of a frame a queued call.
    if (this.#pumping) return
    this.#pumping = true
    try {
      this.#pumpQueue()
    } finally {
      this.#pumping = false
    }
  }

  #pumpQueue(): void {
    while (this.#queueHead < this.#queue.length) {
      const call = this.#queue[this.#queueHead]!
      if (!this.#mayDispatch(call)) break
      this.#queue[this.#queueHead++] = undefined
      if (this.#queueHead === this.#queue.length) {
        // Drained: start over, so a long sequential run keeps an empty array (shift() on a burst
        // of queued calls would be quadratic).
        this.#queue.length = 0
        this.#queueHead = 0
      }
      this.#dispatch(call)
    }
  }

  /** Whether `call` may be handed to `dispatch` now: fewer than `maxCallsInFlight` running, and its arguments fit with theirs (or none runs). */
  #mayDispatch(call: QueuedCall): boolean {
    const { maxCallsInFlight, maxCrossingBytes } = this.#options.limits
    return !this.#closed && this.#inFlightCount < maxCallsInFlight && (this.#inFlightCount === 0 || this.#inFlightChars + call.argsJson.length <= maxCrossingBytes)
  }

  #dispatch(call: QueuedCall): void {
    call.previous = this.#newest
    if (this.#newest === undefined) this.#oldest = call
    else this.#newest.next = call
    this.#newest = call
    this.#inFlightCount++
    this.#inFlightChars += call.argsJson.length
    this.dispatched++
    let outcome: Promise<IsolateToolOutcome> | void
    try {
      outcome = this.#options.dispatch(call)
    } catch (error) {
      return call.answer(failedOutcome(error))
    }
    // A dispatch that returns nothing answers through `call.answer` (IsolateRunRequest.dispatch).
    if (outcome !== undefined) {
      Promise.resolve(outcome).then(
        (result) => call.answer(result),
        (error: unknown) => call.answer(failedOutcome(error)),
      )
    }
  }

  #done(call: QueuedCall, outcome: IsolateToolOutcome): void {
    // Off the books first: settling may run the script's next step at once, whose call then finds
    // its slot free, and the time that step runs is the script's, not its calls' (`busyMs`).
    this.#unlink(call)
    if (!this.#closed && this.#inFlightCount === 0 && this.#queueHead === this.#queue.length && this.#busySince !== undefined) {
      this.#busyMs += performance.now() - this.#busySince
      this.#busySince = undefined
    }
    try {
      if (!this.#closed) this.#onOutcome(call, outcome) // Discarded once the run is over.
    } catch {
      // Never throws toward the tool's promise; the run's own limits catch real faults.
    }
    this.#pump()
  }

  #unlink(call: QueuedCall): void {
    if (call.previous === undefined) this.#oldest = call.next
    else call.previous.next = call.next
    if (call.next === undefined) this.#newest = call.previous
    else call.next.previous = call.previous
    call.previous = call.next = undefined
    this.#inFlightCount--
    this.#inFlightChars -= call.argsJson.length
  }

  #onOutcome(call: QueuedCall, result: IsolateToolOutcome): void {
    const { limits, settle } = this.#options
    if (result?.ok === true && typeof result.valueJson === 'string') {
      // The call has run (a package trial: the message did not say so, unlike a refused call's
      // "this call was not made", so a model might repeat a call that changed something).
      const bytes = utf8BytesOver(result.valueJson, limits.maxCrossingBytes)
      if (bytes !== undefined) {
        settle(call.callId, false, `the tool ran, but its result is too large to return: ${bytes} bytes of JSON, the limit is ${limits.maxCrossingBytes} bytes (maxCrossingBytes). What the call did stands: do not repeat it to get the result; ask the tool for less (filters, pages, handles).`)
      } else {
        settle(call.callId, true, result.valueJson)
      }
    } else if (result?.ok === false) {
      settle(call.callId, false, typeof result.message === 'string' ? result.message : 'the tool failed')
    } else {
      settle(call.callId, false, 'the tool returned a malformed outcome')
    }
  }
}

/** The outcome of a call whose `dispatch` threw or rejected with `error`: a failure the script sees as its `ToolCallError`. */
export function failedOutcome(error: unknown): IsolateToolOutcome {
  return { ok: false, message: `the tool failed: ${describeThrown(error)}` }
}

/**
 * The UTF-8 length of `text` in bytes when it exceeds `max`, else `undefined`. A UTF-16 code unit
 * is at most 3 UTF-8 bytes, so short strings skip the count.
 */
export function utf8BytesOver(text: string, max: number): number | undefined {
  if (text.length * 3 <= max) return undefined
  const bytes = Buffer.byteLength(text)
  return bytes > max ? bytes : undefined
}
