/**
 * The tool calls of one isolate run (SPEC S9.1–S9.3): each `tools.name(args)` from the script is
 * checked (a visible tool, under `maxToolCalls`, arguments under `maxCrossingBytes`), queued FIFO,
 * handed to the host's `dispatch` with at most `maxCallsInFlight` pending and their arguments
 * within `maxCrossingBytes` together (one call may always go), and its outcome
 * settled back as a value or a `ToolCallError` message. Also keeps the time the run spent with a
 * call running or queued, for deadline messages.
 */
import { describeThrown } from '../../errors/describe-thrown.ts'
import type { IsolateRunRequest, IsolateToolOutcome } from './isolate-contract.ts'
import type { RunLimits } from './run-limits.ts'

interface QueuedCall {
  callId: number
  name: string
  argsJson: string
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
  readonly #inFlight = new Map<number, { controller: AbortController; name: string }>()
  /** Characters of the arguments' JSON of the calls in flight. */
  #inFlightChars = 0
  #queue: (QueuedCall | undefined)[] = []
  #queueHead = 0
  #accepted = 0
  #closed = false
  #busySince: number | undefined
  #busyMs = 0

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
    return [...this.#inFlight.values()].map((call) => call.name)
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
    this.#queue.push({ callId, name, argsJson })
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
    for (const call of this.#inFlight.values()) call.controller.abort(reason)
    const notMade: number[] = []
    for (let index = this.#queueHead; index < this.#queue.length; index++) notMade.push(this.#queue[index]!.callId)
    this.#queue = []
    this.#queueHead = 0
    return notMade
  }

  /**
   * Dispatches queued calls while fewer than `maxCallsInFlight` are pending and the next one's
   * arguments fit, with theirs, in `maxCrossingBytes` (or none is pending).
   */
  #pump(): void {
    const { maxCallsInFlight, maxCrossingBytes } = this.#options.limits
    while (!this.#closed && this.#inFlight.size < maxCallsInFlight && this.#queueHead < this.#queue.length) {
      const call = this.#queue[this.#queueHead]!
      if (this.#inFlight.size > 0 && this.#inFlightChars + call.argsJson.length > maxCrossingBytes) break
      this.#queue[this.#queueHead++] = undefined
      if (this.#queueHead === this.#queue.length) {
        // Drained: start over, so a long sequential run keeps an empty array (shift() on a burst
        // of queued calls would be quadratic).
        this.#queue.length = 0
        this.#queueHead = 0
      }
      this.#dispatch(call)
    }
    if (!this.#closed && this.#inFlight.size === 0 && this.#busySince !== undefined) {
      this.#busyMs += performance.now() - this.#busySince
      this.#busySince = undefined
    }
  }

  #dispatch(call: QueuedCall): void {
    const controller = new AbortController()
    this.#inFlight.set(call.callId, { controller, name: call.name })
    this.#inFlightChars += call.argsJson.length
    this.dispatched++
    let outcome: Promise<IsolateToolOutcome>
    try {
      outcome = Promise.resolve(this.#options.dispatch({ pairingId: `${this.#options.runId}:${call.callId}`, name: call.name, argsJson: call.argsJson, signal: controller.signal }))
    } catch (error) {
      outcome = Promise.reject(error)
    }
    outcome.then(
      (result) => this.#done(call, () => this.#onOutcome(call, result)),
      (error: unknown) => this.#done(call, () => this.#options.settle(call.callId, false, `the tool failed: ${describeThrown(error)}`)),
    )
  }

  #done(call: QueuedCall, settle: () => void): void {
    try {
      if (!this.#closed) settle() // Discarded once the run is over.
    } catch {
      // Never throws toward the tool's promise; the run's own limits catch real faults.
    }
    this.#inFlight.delete(call.callId)
    this.#inFlightChars -= call.argsJson.length
    this.#pump()
  }

  #onOutcome(call: QueuedCall, result: IsolateToolOutcome): void {
    const { limits, settle } = this.#options
    if (result?.ok === true && typeof result.valueJson === 'string') {
      const bytes = utf8BytesOver(result.valueJson, limits.maxCrossingBytes)
      if (bytes !== undefined) {
        settle(call.callId, false, `the result is too large: ${bytes} bytes of JSON, the limit is ${limits.maxCrossingBytes} bytes (maxCrossingBytes). Ask the tool for less (filters, pages, handles).`)
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

/**
 * The UTF-8 length of `text` in bytes when it exceeds `max`, else `undefined`. A UTF-16 code unit
 * is at most 3 UTF-8 bytes, so short strings skip the count.
 */
export function utf8BytesOver(text: string, max: number): number | undefined {
  if (text.length * 3 <= max) return undefined
  const bytes = Buffer.byteLength(text)
  return bytes > max ? bytes : undefined
}
