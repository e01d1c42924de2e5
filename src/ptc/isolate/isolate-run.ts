/**
 * Runs one compiled `run_code` script in a fresh isolated-vm isolate (SPEC S9.1–S9.3, S9.7): the
 * in-isolate runner, used in the isolate worker process (and in the host with `isolation:
 * 'inline'`). Every `await tools.name(args)` goes to the host's `dispatch` through a
 * {@link ToolCallQueue}; only JSON strings cross the boundary. The wall clock, CPU time, memory,
 * tool-call count, concurrency and crossing sizes of `RunLimits` are enforced here; whatever the
 * script does, the result is a value, never a thrown exception.
 */
import ivm from 'isolated-vm'
import type { RuntimeConfig, Settlement } from '../../../runtime/bridge-types.ts'
import { describeThrown } from '../../errors/describe-thrown.ts'
import { IsolateClock } from './isolate-clock.ts'
import { OpenEntries } from './open-entries.ts'
import type { IsolateRunRequest, IsolateRunResult } from './isolate-contract.ts'
import { disposeQuietly, prepareIsolate, type IsolatePool, type PreparedIsolate } from './isolate-pool.ts'
import { cancelledError, catastropheEnding, memoryEnding, memoryLimitName, type RunEnding, TOO_DEEP, withWithdrawnCalls } from './run-endings.ts'
import { RunBudget } from './run-budget.ts'
import { resolveRunLimits, type RunLimits } from './run-limits.ts'
import { LOG_ENTRY_OVERHEAD, RunLogs } from './run-logs.ts'
import { RunWarnings } from './run-warnings.ts'
import { compileErrorAt, SCRIPT_ORIGIN } from './script-frames.ts'
import { scriptOutcome, type ScriptOutcome } from './script-outcome.ts'
import { ToolCallQueue } from './tool-call-queue.ts'
import { setDeadline } from './deadline-timer.ts'
import { SettleEntries } from './settle-entries.ts'
import { TurnBatcher } from './turn-batcher.ts'

const CPU_POLL_MS = 20
const TIMED_OUT = 'Script execution timed out.'

type Ending = RunEnding | ScriptOutcome // a run's ending before logs, counts and duration: a limit's, or the script's own outcome

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
  if (request.signal?.aborted) return { status: 'cancelled', error: cancelledError(), logs: [], toolCalls: 0, durationMs: performance.now() - startedAt }
  const prepared = pool === undefined ? await prepareIsolate({ memoryMb: limits.memoryMb }) : pool.memoryMb === limits.memoryMb ? await pool.take() : await pool.takeFresh(limits.memoryMb)
  return new IsolateRun(prepared, request, limits, startedAt).execute()
}

/** The state of one run; see {@link runInIsolate}. */
class IsolateRun {
  private readonly isolate: ivm.Isolate
  private readonly logs: RunLogs
  private readonly calls: ToolCallQueue
  /** Settlements of tool calls cross into the isolate together, once per event-loop turn (the answer to the only call outstanding at once). */
  private readonly settlements = new TurnBatcher<Settlement>((batch) => this.flush(batch))
  private settleEntries: SettleEntries | undefined
  private readonly budget: RunBudget
  private readonly entries = new OpenEntries()
  /** While a step runs on this thread (`stepHere`): the settlements made meanwhile, sent after it. */
  private heldBack: Settlement[] | undefined
  /** A step that may run on this thread waiting for the open entries to end, and what came after it (`flush`). */
  private nextStep: Settlement[] | undefined
  /** Calls the script made, and outcomes sent back: equal when none is outstanding. */
  private callsMade = 0
  private callsSettled = 0
  private ended = false
  private readonly timers: NodeJS.Timeout[] = []
  private readonly onAbort = (): void => this.stop({ status: 'cancelled', error: cancelledError() }, "the caller's cancel")
  /** What the script left behind (issue 11), and its own outcome once it has ended. */
  private readonly leftovers = new RunWarnings()
  private scriptEnding: Ending | undefined
  private resolveDone!: (result: IsolateRunResult) => void
  private readonly done = new Promise<IsolateRunResult>((resolve) => (this.resolveDone = resolve))

  private readonly prepared: PreparedIsolate
  private readonly request: IsolateRunRequest
  private readonly limits: RunLimits
  private readonly startedAt: number

  constructor(prepared: PreparedIsolate, request: IsolateRunRequest, limits: RunLimits, startedAt: number) {
    this.prepared = prepared
    this.request = request
    this.limits = limits
    this.startedAt = startedAt
    this.isolate = prepared.isolate
    this.budget = new RunBudget(new IsolateClock(prepared.isolate), limits, startedAt, request.checkMs ?? 0)
    this.logs = new RunLogs(limits.maxLogBytes)
    this.calls = new ToolCallQueue({
      // Random, not a counter: pairing ids stay distinct across worker restarts. Not `randomUUID`:
      // `node:crypto` would be loaded on the worker's start path (issue 12).
      runId: ((Math.random() * 2 ** 32) >>> 0).toString(16).padStart(8, '0'),
      toolNames: request.toolNames,
      limits,
      dispatch: request.dispatch,
      settle: (callId, ok, text) => {
        if (this.ended) return
        this.callsSettled++
        this.leftovers.outcome(callId, ok, text)
        // The only call outstanding (a step): sent at once, or with those queued a microtask from now.
        if (this.callsSettled === this.callsMade) this.settlements.pushAlone([callId, ok, text])
        else this.settlements.push([callId, ok, text])
      },
    })
  }

  async execute(): Promise<IsolateRunResult> {
    this.prepared.onCatastrophe = (message) => this.stop(catastropheEnding(message, this.limits.memoryMb, false), 'a failure of the isolate')
    this.budget.clock.start()
    this.request.signal?.addEventListener('abort', this.onAbort, { once: true })
    if (this.request.signal?.aborted === true) return (this.onAbort(), this.done) // aborted while it waited for its isolate
    setDeadline(this.timers, this.startedAt + this.limits.wallClockMs, () => this.stop(...this.budget.deadlineVerdict(this.calls, this.entries.openMs)))
    this.timers.push(setInterval(() => this.checkCpu(), CPU_POLL_MS))
    await this.boot().catch((error: unknown) => this.onIsolateFailure(error))
    return this.done
  }

  /** Compiles the script, then configures the runtime and starts the script in one entry (issue 12). */
  private async boot(): Promise<void> {
    const { maxToolCalls, maxCrossingBytes, maxLogBytes } = this.limits
    const config: RuntimeConfig = { toolNames: [...this.request.toolNames], maxToolCalls, maxCrossingBytes, maxLogBytes, logEntryOverhead: LOG_ENTRY_OVERHEAD }
    // Host callbacks never throw into isolated-vm; the run's own limits catch real faults.
    this.prepared.handlers = {
      call: (callId, name, argsJson) => {
        try {
          this.callsMade++
          this.leftovers.called(callId, name, argsJson)
          this.calls.accept(callId, name, argsJson)
        } catch {}
      },
      log: (level, text) => quietly(() => !this.ended && this.logs.add(level, text)),
      finish: (kind, payload, pendingIds, handedIds) => quietly(() => this.onFinish(kind, payload, pendingIds, handedIds)),
    }
    const { start, settle } = this.prepared.control
    this.settleEntries = new SettleEntries(settle, (entry) => this.enter(entry))
    let scriptFunction: ivm.Reference<unknown>
    try {
      // One entry compiles the script and evaluates its function (issue 12). The last `//#
      // sourceURL` wins: ours, after any the script wrote, keeps its frames its own; V8 then
      // ignores a line offset, so script-frames.ts takes the closure's first line off.
      const options = { filename: SCRIPT_ORIGIN, timeout: this.budget.entryTimeoutMs(), result: { reference: true } } as const
      scriptFunction = this.prepared.context.evalClosureSync(`return (async () => {\n${this.request.js}\n})\n//# sourceURL=${SCRIPT_ORIGIN}`, [], options) as ivm.Reference<unknown>
    } catch (error) {
      if (this.ended || this.isolate.isDisposed || describeThrown(error) === TIMED_OUT) throw error
      // V8's parser runs out of stack on deep nesting; its message names no place in the script.
      const message = describeThrown(error).replace(/^Maximum call stack size exceeded.*$/s, TOO_DEEP)
      this.end({ status: 'error', error: { name: 'SyntaxError', ...compileErrorAt(message) } })
      return
    }
    if (this.ended) return
    // The first step too runs here when `stepHere` allows (issue 12: a thread hand-over less a run).
    const args = [scriptFunction.derefInto(), JSON.stringify(config)] as const
    if (this.request.stepHere?.() === true) this.stepHere((timeout) => start.applySync(undefined, [...args, true], { timeout }))
    else this.enter(start.apply(undefined, [...args], { timeout: this.budget.entryTimeoutMs() }))
  }

  /** Tracks one entry: its failure is classified, never thrown; open ones keep the run from ending (issue 11). */
  private enter(entry: Promise<unknown>): void {
    this.entries.open()
    entry.then(undefined, (error: unknown) => this.onIsolateFailure(error)).finally(() => {
      if (this.entries.close() > 0) return
      const next = this.nextStep
      this.nextStep = undefined
      this.release(next)
      this.endAfterScript()
    })
  }

  /**
   * An entry into the isolate failed: after our own disposal, as expected; a disposal we did not
   * make, at the memory limit; a timeout, at the wall clock or CPU limit. Anything else
   * is an unhandled rejection in the script, reported as its entry's failure: a warning.
   */
  private onIsolateFailure(error: unknown, byCpu = false): void {
    if (this.ended) return
    // A limit ending the run in a step on this thread: its calls, held in the worker until it returns, are not made.
    const withdrawn = this.heldBack !== undefined && (this.isolate.isDisposed || describeThrown(error) === TIMED_OUT) ? this.calls.withdraw() : []
    if (this.isolate.isDisposed) {
      // We did not dispose it (the run has not ended): isolated-vm did, at the memory limit.
      this.stop(withWithdrawnCalls(memoryEnding(this.limits.memoryMb), withdrawn), memoryLimitName(this.limits.memoryMb))
    } else if (describeThrown(error) === TIMED_OUT) {
      // Entries time out at the wall clock, a step on this thread also at the CPU time left (`byCpu`).
      const [ending, stoppedBy] = this.budget.timedOut(byCpu, this.calls, this.entries.openMs)
      this.stop(withWithdrawnCalls(ending, withdrawn), stoppedBy)
    } else {
      this.leftovers.rejection(error)
    }
  }

  private checkCpu(): void {
    if (this.ended) return
    if (this.isolate.isDisposed) this.stop(memoryEnding(this.limits.memoryMb), memoryLimitName(this.limits.memoryMb))
    else if (this.budget.cpuOver()) this.stop(...this.budget.cpuVerdict())
  }

  /**
   * Settlements cross into the isolate. A success answering the only call outstanding (a step) runs
   * on this thread when `stepHere` allows, else is not waited for (issue 12; {@link SettleEntries}
   * still reports rejections). A failure or other calls running are waited for (issue 11).
   */
  private flush(batch: Settlement[]): void {
    if (this.ended || this.settleEntries === undefined) return
    // The script has ended: these are outcomes of calls it did not await (kept by `leftovers`).
    if (this.scriptEnding !== undefined) return this.endAfterScript()
    // Settled while a step runs here (a refused call), or behind a step waiting for the open entries (whose script may still make calls).
    const held = this.heldBack ?? this.nextStep
    if (held !== undefined) return void held.push(...batch)
    let wait = this.callsSettled !== this.callsMade
    for (let index = 0; index < batch.length && !wait; index++) wait = !batch[index]![1]
    if (!wait && this.request.stepHere?.() === true) {
      // Only with no entry running in the isolate (it runs its entries in order): after the one
      // waited for has ended; after one not waited for, this one is waited for.
      if (!this.settleEntries.lastUnobserved) return this.entries.count > 0 ? void (this.nextStep = batch) : this.stepHere((timeoutMs) => this.settleEntries!.runNow(batch, timeoutMs), batch)
      wait = true
    }
    this.settleEntries.send(batch, wait)
  }

  /** A step on this thread (`IsolateRunRequest.stepHere`), the first or one delivering `batch`: `step` enters with `applySync` (`RunBudget.stepTimeout`); open until it returns. */
  private stepHere(step: (timeoutMs: number) => void, batch: Settlement[] = []): void {
    const timeout = this.budget.stepTimeout()
    const heldBack: Settlement[] = []
    this.heldBack = heldBack
    this.entries.open()
    try {
      this.request.onStepHere?.(true, false, timeout)
      step(timeout.timeoutMs)
    } catch (error) {
      this.onIsolateFailure(error, timeout.byCpu)
    } finally {
      this.entries.close()
      this.heldBack = undefined
      this.leftovers.delivered(batch)
      // Ended in the step (a limit): the calls it made, held until it returns, were withdrawn.
      this.request.onStepHere?.(false, this.ended)
    }
    this.release(heldBack)
    this.endAfterScript()
  }

  /** Sends what was held back through the batcher: a batch stays within 128 (isolated-vm drops some argument counts). */
  private release(held: Settlement[] | undefined): void {
    for (const settlement of held ?? []) this.settlements.push(settlement, true)
  }

  private onFinish(kind: unknown, payload: unknown, pendingIds: unknown, handedIds: unknown): void {
    if (this.ended || this.scriptEnding !== undefined) return
    const ending = scriptOutcome(kind, payload, this.limits.maxCrossingBytes, this.request.valueAsJson)
    if (ending !== undefined) this.scriptEnded(ending, pendingIds, handedIds)
  }

  /**
   * The script has ended with `ending` (issue 11: nothing vanishes at return); none of its code
   * runs any more. The run ends once the entry that finished is over (its unhandled rejection is
   * reported by then) and the calls it did not await (`pendingIds`) have finished, within the deadline.
   */
  private scriptEnded(ending: Ending, pendingIds: unknown, handedIds: unknown): void {
    this.scriptEnding = ending
    this.leftovers.scriptEnded(ending.status === 'ok' ? 'returned' : 'threw', pendingIds, handedIds)
    this.settlements.clear()
    this.settleEntries?.checkRejections()
    this.endAfterScript()
  }

  private endAfterScript(): void {
    if (this.scriptEnding !== undefined && this.entries.count === 0 && !this.leftovers.waiting) this.end(this.scriptEnding, true)
  }

  /** A limit, the isolate's failure or the caller stops the run; after the script ended, its own outcome stands (`kept-running` when its code still ran). */
  private stop(ending: Ending, stoppedBy: string): void {
    if (this.scriptEnding === undefined) return this.end(ending)
    if (this.entries.count > 0 || this.isolate.isDisposed) this.leftovers.stoppedAfterEnd(stoppedBy)
    this.end(this.scriptEnding, true, stoppedBy)
  }

  /** Ends the run once: stops timers, aborts in-flight calls (named in `stoppedCalls` unless the script or a deadline ended the run), disposes the isolate, resolves. */
  private end(ending: Ending, finishedByScript = false, stoppedBy = 'the end of the run'): void {
    if (this.ended) return
    this.ended = true
    for (const timer of this.timers) clearTimeout(timer)
    this.request.signal?.removeEventListener('abort', this.onAbort)
    const stoppedCalls = finishedByScript || 'deadline' in ending ? [] : this.calls.running
    this.leftovers.notMade(this.calls.close(new Error(`run ended (${ending.status})`)))
    this.settlements.clear()
    this.prepared.onCatastrophe = this.prepared.handlers = undefined
    const released = this.prepared.onReleased
    this.prepared.onReleased = undefined
    if (!finishedByScript) disposeQuietly(this.isolate)
    const warnings = this.leftovers.list(stoppedBy)
    this.resolveDone({ ...ending, ...(warnings.length > 0 && { warnings }), ...(stoppedCalls.length > 0 && { stoppedCalls }), logs: this.logs.entries, toolCalls: this.calls.dispatched, durationMs: performance.now() - this.startedAt })
    // Disposing takes a millisecond: after the caller has the result (next turn, or the pool's `afterRun`) when the script
    // finished (it runs no more, its callbacks are refused); any other ending stopped the isolate at once, above.
    if (finishedByScript || released !== undefined) {
      ;(this.prepared.afterRun ?? setImmediate)(() => {
        if (finishedByScript) disposeQuietly(this.isolate)
        released?.()
      })
    }
  }
}

const quietly = (fn: () => unknown): unknown => { try { return fn() } catch {} } // a host callback for isolated-vm: what it throws is dropped (boot())
