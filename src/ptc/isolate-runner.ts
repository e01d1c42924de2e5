/**
 * Runs one compiled `run_code` script in a fresh isolated-vm isolate (SPEC S9.1–S9.3, S9.7) and
 * bridges every `await tools.name(args)` to the host's `dispatch` callback. Only JSON strings
 * cross the boundary. The host enforces the wall clock, CPU time, memory, tool-call count,
 * concurrency and crossing-size limits of {@link RunLimits}; whatever the script does, the
 * result is a value, never a thrown exception.
 */
import { randomUUID } from 'node:crypto'
import ivm from 'isolated-vm'
import type { LogLevel, RuntimeConfig, Settlement } from '../../runtime/bridge-types.ts'
import { disposeQuietly, prepareIsolate, type IsolatePool, type PreparedIsolate } from './isolate-pool.ts'
import { cancelledError } from './run-endings.ts'
import { resolveRunLimits, type RunLimits } from './run-limits.ts'

export type { RunLimits } from './run-limits.ts'
export { DEFAULT_RUN_LIMITS, resolveRunLimits } from './run-limits.ts'

/** One tool call from the script, as handed to {@link IsolateRunRequest.dispatch}. */
export interface IsolateToolCall {
  /** Unique id of this call: `<run id>:<sequence>`. */
  pairingId: string
  /** A name from `toolNames`. */
  name: string
  /** The arguments as JSON text, produced inside the isolate (at most `maxCrossingBytes`). */
  argsJson: string
  /** Aborted when the run ends for any reason (finish, timeout, memory, cancel). */
  signal: AbortSignal
}

/** What `dispatch` resolves to: the canonical value's JSON, or a model-readable failure. */
export type IsolateToolOutcome = { ok: true; valueJson: string } | { ok: false; message: string }

/** One script run. */
export interface IsolateRunRequest {
  /**
   * JavaScript (already compiled) that is the BODY of an async function: it may use top-level
   * `await` and a top-level `return`. It is wrapped as `(async () => { <js> })`.
   */
  js: string
  /** The visible tools: exactly these become functions on `tools`. */
  toolNames: readonly string[]
  /** Overrides of {@link DEFAULT_RUN_LIMITS}. */
  limits?: Partial<RunLimits>
  /** Aborting it ends the run with status `cancelled`. */
  signal?: AbortSignal
  /**
   * Called for every accepted `tools.x(args)`. `{ok:false, message}` or a rejection becomes a
   * `ToolCallError` in the script. Never called after the run has ended: calls that arrive
   * later are refused; outcomes that arrive later are discarded.
   */
  dispatch: (call: IsolateToolCall) => Promise<IsolateToolOutcome>
}

/** How a run ended. */
export type RunStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'cancelled'

/** One captured console line. */
export interface IsolateLogEntry {
  level: LogLevel
  text: string
}

/** The outcome of {@link runInIsolate}. */
export interface IsolateRunResult {
  status: RunStatus
  /** The parsed JSON of the script's return value (absent when it returned `undefined`). */
  value?: unknown
  /**
   * For `error`: the uncaught error's name and message (or why the return value could not be
   * carried). For `timeout`/`memory`/`cancelled`: which limit, its value and what to do.
   */
  error?: { name: string; message: string }
  logs: IsolateLogEntry[]
  /** Calls handed to `dispatch`. */
  toolCalls: number
  /** Wall-clock duration of the run in ms. */
  durationMs: number
}

const CPU_POLL_MS = 20
const LOG_ENTRY_OVERHEAD = 32
const LOG_LEVELS: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error', 'debug'])
const SCRIPT_ORIGIN = 'file:///ptc/script.js'
const TIMED_OUT = 'Script execution timed out.'

/**
 * Runs `request.js` in a fresh isolate (from `pool` when its `memoryMb` matches the run's limit)
 * and disposes the isolate afterwards, whatever happened: no state survives between runs.
 *
 * Never throws for anything the script does; throws only for infrastructure failures (the
 * isolate or runtime cannot be created) and invalid `limits` (RangeError).
 */
export async function runInIsolate(request: IsolateRunRequest, pool?: IsolatePool): Promise<IsolateRunResult> {
  const startedAt = performance.now()
  const limits = resolveRunLimits(request.limits)
  if (request.signal?.aborted) {
    return { status: 'cancelled', error: cancelledError(), logs: [], toolCalls: 0, durationMs: performance.now() - startedAt }
  }
  const prepared = pool !== undefined && pool.memoryMb === limits.memoryMb ? await pool.take() : await prepareIsolate({ memoryMb: limits.memoryMb })
  return new IsolateRun(prepared, request, limits, startedAt).execute()
}

interface QueuedCall {
  callId: number
  name: string
  argsJson: string
}

type Ending = Pick<IsolateRunResult, 'status' | 'value' | 'error'>

/** The state of one run; see {@link runInIsolate}. */
class IsolateRun {
  private readonly prepared: PreparedIsolate
  private readonly isolate: ivm.Isolate
  private readonly request: IsolateRunRequest
  private readonly limits: RunLimits
  private readonly startedAt: number
  private readonly runId = randomUUID().slice(0, 8)
  private readonly toolNames: ReadonlySet<string>
  private readonly logs: IsolateLogEntry[] = []
  private logBytes = 0
  private logsTruncated = false
  private accepted = 0
  private dispatched = 0
  private readonly inFlight = new Map<number, AbortController>()
  private readonly queue: QueuedCall[] = []
  private queueHead = 0
  private outbox: Settlement[] = []
  private flushScheduled = false
  private settleRef: ivm.Reference<(batch: Settlement[]) => void> | undefined
  private cpuBaselineNs = 0n
  private ended = false
  private readonly timers: NodeJS.Timeout[] = []
  private readonly onAbort = (): void => this.end({ status: 'cancelled', error: cancelledError() })
  private resolveDone!: (result: IsolateRunResult) => void
  private readonly done = new Promise<IsolateRunResult>((resolve) => (this.resolveDone = resolve))

  constructor(prepared: PreparedIsolate, request: IsolateRunRequest, limits: RunLimits, startedAt: number) {
    this.prepared = prepared
    this.isolate = prepared.isolate
    this.request = request
    this.limits = limits
    this.startedAt = startedAt
    this.toolNames = new Set(request.toolNames)
  }

  async execute(): Promise<IsolateRunResult> {
    this.prepared.onCatastrophe = (message) =>
      this.end({
        status: 'memory',
        error: {
          name: 'IsolateMemoryError',
          message: `The isolate failed catastrophically (${message}), typically from exhausting its ${this.limits.memoryMb} MB memory limit (memoryMb) with one huge allocation. Process data in smaller pieces.`,
        },
      })
    this.cpuBaselineNs = this.isolate.cpuTime
    this.request.signal?.addEventListener('abort', this.onAbort, { once: true })
    this.timers.push(setTimeout(() => this.end(wallClockEnding(this.limits.wallClockMs)), Math.max(0, this.limits.wallClockMs - (performance.now() - this.startedAt))))
    this.timers.push(setInterval(() => this.checkCpu(), CPU_POLL_MS))
    try {
      await this.boot()
    } catch (error) {
      this.onIsolateFailure(error)
    }
    return this.done
  }

  /** Configures the prepared runtime for this run, compiles the script and starts it. */
  private async boot(): Promise<void> {
    const config: RuntimeConfig = {
      toolNames: [...this.toolNames],
      maxToolCalls: this.limits.maxToolCalls,
      maxCrossingBytes: this.limits.maxCrossingBytes,
      maxLogBytes: this.limits.maxLogBytes,
      logEntryOverhead: LOG_ENTRY_OVERHEAD,
    }
    this.prepared.handlers = {
      call: (callId, name, argsJson) => this.guard(() => this.onCall(callId, name, argsJson)),
      log: (level, text) => this.guard(() => this.onLog(level, text)),
      finish: (kind, payload) => this.guard(() => this.onFinish(kind, payload)),
    }
    // The isolate is idle and only our runtime runs until `start`, so these entries are
    // synchronous: each async entry costs two thread hops (about 0.1–0.3 ms each under load).
    const { configure, start, settle } = this.prepared.control
    configure.applySync(undefined, [JSON.stringify(config)], { timeout: this.entryTimeoutMs() })
    if (this.ended) return
    this.settleRef = settle
    let script: ivm.Script
    try {
      // Compiling runs no script code; it costs what parsing the script costs.
      script = this.isolate.compileScriptSync(`(async () => {\n${this.request.js}\n})`, { filename: SCRIPT_ORIGIN, lineOffset: -1 })
    } catch (error) {
      if (this.ended || this.isolate.isDisposed) throw error
      this.end({ status: 'error', error: { name: 'SyntaxError', message: errorMessage(error) } })
      return
    }
    if (this.ended) return
    const scriptFunction = (await script.run(this.prepared.context, { reference: true, timeout: this.entryTimeoutMs() })) as ivm.Reference<unknown>
    if (this.ended) return
    this.enter(start.apply(undefined, [scriptFunction.derefInto()], { timeout: this.entryTimeoutMs() }))
  }

  /** Tracks one entry into the isolate: its failure is classified, never thrown. */
  private enter(entry: Promise<unknown>): void {
    entry.then(undefined, (error: unknown) => this.onIsolateFailure(error))
  }

  /**
   * An entry into the isolate failed. After our own disposal that is expected; a disposed
   * isolate we did not dispose hit its memory limit; a timeout is the CPU limit. Anything else
   * is an unhandled promise rejection in the script, which isolated-vm reports as the failure of
   * the entry it happened in: the run goes on and the rejection is logged as a warning.
   */
  private onIsolateFailure(error: unknown): void {
    if (this.ended) return
    const message = errorMessage(error)
    if (this.isolate.isDisposed) {
      // We did not dispose it (the run has not ended): isolated-vm did, at the memory limit.
      this.end(memoryEnding(this.limits.memoryMb))
    } else if (message === TIMED_OUT) {
      this.end(cpuEnding(this.limits.cpuTimeMs))
    } else {
      this.onLog('warn', `Unhandled promise rejection: ${describeHostError(error)}`)
    }
  }

  private checkCpu(): void {
    if (this.ended) return
    if (this.isolate.isDisposed) {
      this.end(memoryEnding(this.limits.memoryMb))
      return
    }
    if (this.cpuUsedMs() > this.limits.cpuTimeMs) this.end(cpuEnding(this.limits.cpuTimeMs))
  }

  private cpuUsedMs(): number {
    try {
      return Number(this.isolate.cpuTime - this.cpuBaselineNs) / 1e6
    } catch {
      return 0
    }
  }

  /** Timeout for the next entry into the isolate: the smaller of the CPU and wall budgets left. */
  private entryTimeoutMs(): number {
    const cpuLeft = this.limits.cpuTimeMs - this.cpuUsedMs()
    const wallLeft = this.limits.wallClockMs - (performance.now() - this.startedAt)
    return Math.max(1, Math.ceil(Math.min(cpuLeft, wallLeft)))
  }

  private guard(fn: () => void): void {
    try {
      fn()
    } catch {
      // A host callback never throws into isolated-vm; the run's own limits catch real faults.
    }
  }

  private onCall(callId: unknown, name: unknown, argsJson: unknown): void {
    if (this.ended) return // Late call: refused, dispatch is never called.
    if (typeof callId !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
    if (!this.toolNames.has(name)) {
      this.settle(callId, false, `there is no tool named "${name.slice(0, 100)}"`)
      return
    }
    if (this.accepted >= this.limits.maxToolCalls) {
      this.settle(callId, false, `tool call limit reached: a run may make at most ${this.limits.maxToolCalls} tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.`)
      return
    }
    const bytes = utf8BytesOver(argsJson, this.limits.maxCrossingBytes)
    if (bytes !== undefined) {
      this.settle(callId, false, `the arguments are too large: ${bytes} bytes of JSON, the limit is ${this.limits.maxCrossingBytes} bytes (maxCrossingBytes); this call was not made`)
      return
    }
    this.accepted++
    this.queue.push({ callId, name, argsJson })
    this.pump()
  }

  /** Dispatches queued calls while fewer than `maxCallsInFlight` are pending. */
  private pump(): void {
    while (!this.ended && this.inFlight.size < this.limits.maxCallsInFlight && this.queueHead < this.queue.length) {
      const call = this.queue[this.queueHead]!
      this.queue[this.queueHead++] = undefined as never
      if (this.queueHead === this.queue.length) {
        // Drained: start over, so a long sequential run keeps an empty array (shift() on a burst
        // of queued calls would be quadratic).
        this.queue.length = 0
        this.queueHead = 0
      }
      this.dispatch(call)
    }
  }

  private dispatch(call: QueuedCall): void {
    const controller = new AbortController()
    this.inFlight.set(call.callId, controller)
    this.dispatched++
    let outcome: Promise<IsolateToolOutcome>
    try {
      outcome = Promise.resolve(this.request.dispatch({ pairingId: `${this.runId}:${call.callId}`, name: call.name, argsJson: call.argsJson, signal: controller.signal }))
    } catch (error) {
      outcome = Promise.reject(error)
    }
    outcome.then(
      (result) => {
        this.guard(() => this.onOutcome(call, result))
        this.callDone(call)
      },
      (error: unknown) => {
        this.settle(call.callId, false, `the tool failed: ${errorMessage(error)}`)
        this.callDone(call)
      },
    )
  }

  private callDone(call: QueuedCall): void {
    this.inFlight.delete(call.callId)
    this.pump()
  }

  private onOutcome(call: QueuedCall, result: IsolateToolOutcome): void {
    if (this.ended) return // Discarded: the run is over.
    if (result?.ok === true && typeof result.valueJson === 'string') {
      const bytes = utf8BytesOver(result.valueJson, this.limits.maxCrossingBytes)
      if (bytes !== undefined) {
        this.settle(call.callId, false, `the result is too large: ${bytes} bytes of JSON, the limit is ${this.limits.maxCrossingBytes} bytes (maxCrossingBytes). Ask the tool for less (filters, pages, handles).`)
      } else {
        this.settle(call.callId, true, result.valueJson)
      }
    } else if (result?.ok === false) {
      this.settle(call.callId, false, typeof result.message === 'string' ? result.message : 'the tool failed')
    } else {
      this.settle(call.callId, false, 'the tool returned a malformed outcome')
    }
  }

  /** Queues one settlement; queued settlements cross in one batch per event-loop turn. */
  private settle(callId: number, ok: boolean, text: string): void {
    if (this.ended) return
    this.outbox.push([callId, ok, text])
    if (this.flushScheduled) return
    this.flushScheduled = true
    setImmediate(() => this.flush())
  }

  private flush(): void {
    this.flushScheduled = false
    if (this.ended || this.outbox.length === 0 || this.settleRef === undefined) return
    const batch = this.outbox
    this.outbox = []
    this.enter(this.settleRef.apply(undefined, [batch], { arguments: { copy: true }, timeout: this.entryTimeoutMs() }))
  }

  private onLog(level: unknown, text: unknown): void {
    if (this.ended || this.logsTruncated || typeof text !== 'string' || typeof level !== 'string' || !LOG_LEVELS.has(level)) return
    const cost = Buffer.byteLength(text) + LOG_ENTRY_OVERHEAD
    if (this.logBytes + cost > this.limits.maxLogBytes + 2 * LOG_ENTRY_OVERHEAD + 256) {
      // The runtime enforces the budget in UTF-16 units; this is the exact backstop in bytes.
      this.logsTruncated = true
      this.logs.push({ level: 'warn', text: `[logs truncated: the log budget of ${this.limits.maxLogBytes} bytes (maxLogBytes) is used up]` })
      return
    }
    this.logBytes += cost
    this.logs.push({ level: level as LogLevel, text })
  }

  private onFinish(kind: unknown, payload: unknown): void {
    if (this.ended || typeof payload !== 'string') return
    if (kind === 'undefined') {
      this.end({ status: 'ok' }, true)
    } else if (kind === 'value') {
      const bytes = Buffer.byteLength(payload)
      if (bytes > this.limits.maxCrossingBytes) {
        this.end({ status: 'error', error: { name: 'RangeError', message: `the script's return value is too large: ${bytes} bytes of JSON, the limit is ${this.limits.maxCrossingBytes} bytes (maxCrossingBytes). Return less, e.g. a summary or handles.` } }, true)
        return
      }
      // JSON.parse on the host creates own properties only: a "__proto__" key stays plain data.
      this.end({ status: 'ok', value: JSON.parse(payload) }, true)
    } else if (kind === 'error') {
      const parsed = JSON.parse(payload) as { name?: unknown; message?: unknown }
      this.end({ status: 'error', error: { name: typeof parsed.name === 'string' ? parsed.name : 'Error', message: typeof parsed.message === 'string' ? parsed.message : 'the script failed' } }, true)
    }
  }

  /** Ends the run once: stops timers, aborts in-flight calls, disposes the isolate, resolves. */
  private end(ending: Ending, finishedByScript = false): void {
    if (this.ended) return
    this.ended = true
    for (const timer of this.timers) clearTimeout(timer)
    this.request.signal?.removeEventListener('abort', this.onAbort)
    const reason = new Error(`run ended (${ending.status})`)
    for (const controller of this.inFlight.values()) controller.abort(reason)
    this.queue.length = 0
    this.queueHead = 0
    this.outbox = []
    this.prepared.onCatastrophe = undefined
    this.prepared.handlers = undefined
    const released = this.prepared.onReleased
    this.prepared.onReleased = undefined
    if (!finishedByScript) disposeQuietly(this.isolate)
    this.resolveDone({
      ...ending,
      logs: this.logs,
      toolCalls: this.dispatched,
      durationMs: performance.now() - this.startedAt,
    })
    // After the caller has the result: disposing takes about a millisecond, and the pool's
    // replacement isolate is prepared only now. A script that finished by itself is not running,
    // and every callback is already refused (`ended`); any other ending (limits, cancel) must stop
    // the isolate at once.
    if (finishedByScript || released !== undefined) {
      setImmediate(() => {
        if (finishedByScript) disposeQuietly(this.isolate)
        released?.()
      })
    }
  }
}

/**
 * The UTF-8 length of `text` in bytes when it exceeds `max`, else `undefined`. A UTF-16 code unit
 * is at most 3 UTF-8 bytes, so short strings skip the count.
 */
function utf8BytesOver(text: string, max: number): number | undefined {
  if (text.length * 3 <= max) return undefined
  const bytes = Buffer.byteLength(text)
  return bytes > max ? bytes : undefined
}

function wallClockEnding(wallClockMs: number): Ending {
  return {
    status: 'timeout',
    error: {
      name: 'TimeoutError',
      message: `The script did not finish within the wall-clock limit of ${wallClockMs} ms (wallClockMs). It may be awaiting a promise that never settles or too many slow tool calls; make fewer or smaller calls, or run the work in parts.`,
    },
  }
}

function cpuEnding(cpuTimeMs: number): Ending {
  return {
    status: 'timeout',
    error: {
      name: 'TimeoutError',
      message: `The script used more than its CPU time limit of ${cpuTimeMs} ms (cpuTimeMs). Look for an endless loop or do less computation in the script.`,
    },
  }
}

function memoryEnding(memoryMb: number): Ending {
  return {
    status: 'memory',
    error: {
      name: 'MemoryError',
      message: `The script exceeded the isolate memory limit of ${memoryMb} MB (memoryMb). Process data in smaller pieces and keep less of it in memory.`,
    },
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : 'unknown error'
}

function describeHostError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : 'a non-Error value'
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text
}
