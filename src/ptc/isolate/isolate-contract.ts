/**
 * The contract of running one compiled `run_code` script in an isolate (SPEC S9.1–S9.3, S9.7):
 * what a run is asked ({@link IsolateRunRequest}), what it answers ({@link IsolateRunResult}),
 * and the options of the host's `IsolateSupervisor`. The messages between the supervisor and the
 * isolate worker process are in `worker-messages.ts`. Types only (and one default): every side
 * imports it with `import type`.
 */
import type { DeadlineAccount } from './run-endings.ts'
import type { LogLevel } from '../../../runtime/bridge-types.ts'
import type { RunLimits } from './run-limits.ts'

/** The timeout of a step held on the calling thread (`RunBudget.stepTimeout`): `timeoutMs` of the CPU time left (`byCpu`) or of the wall clock. */
export interface HeldStepTimeout {
  timeoutMs: number
  byCpu: boolean
}

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
  /**
   * Settles the call, for a `dispatch` that returned nothing ({@link IsolateRunRequest.dispatch}).
   * The first answer counts; later ones, and any after the run ended, are ignored.
   */
  answer(outcome: IsolateToolOutcome): void
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
  /** Overrides of `DEFAULT_RUN_LIMITS`; `wallClockMs` is the time left for this step. */
  limits?: Partial<RunLimits>
  /**
   * Time in ms the run's deadline already spent before the isolate (type-checking and
   * compiling). Only for messages: a timeout says the whole deadline (`wallClockMs` + this) and
   * what used it. Default 0.
   */
  checkMs?: number
  /**
   * Leave the script's return value as its JSON text in {@link IsolateRunResult.valueJson}
   * instead of parsing it into `value`: the isolate worker sends the text and the host parses it
   * once (issue 12). Default false.
   */
  valueAsJson?: boolean
  /**
   * Asked before the run's first step and before each sequential step (a success answering the
   * script's only call outstanding): `true` lets the runner run that step on this thread
   * (`applySync`), so the call it makes leaves before the thread sleeps again (issue 12: two
   * thread wake-ups a call instead of four, and none for a run that makes no call).
   * This thread then serves nothing else until the step ends (at most the wall-clock or CPU
   * budget left), so only the isolate worker sets it, and only while the run is its only one and
   * the host lets it (`step-permission.ts`). A step runs here only when no other entry of the run
   * can still be running in the isolate; otherwise that step is waited for. Default: never.
   */
  stepHere?: () => boolean
  /**
   * Called with `true` just before a step runs on this thread (see `stepHere`), with the step's
   * `timeout` (the CPU time or wall clock left), and with `false` once it has returned.
   * `withdrawn`: a limit ended the run in that step, so the calls it dispatched must not go out
   * (the isolate worker holds them until the step returns): they are not made, and the run no
   * longer counts them.
   */
  onStepHere?: (running: boolean, withdrawn?: boolean, timeout?: HeldStepTimeout) => void
  /** Aborting it ends the run with status `cancelled`. */
  signal?: AbortSignal
  /**
   * Called for every accepted `tools.x(args)`. `{ok:false, message}` or a rejection becomes a
   * `ToolCallError` in the script. Never called after the run has ended: calls that arrive
   * later are refused; outcomes that arrive later are discarded. It either returns the outcome's
   * promise or returns nothing and answers through `call.answer` (the isolate worker does: no
   * promise and no extra microtask a call, issue 12).
   */
  dispatch: (call: IsolateToolCall) => Promise<IsolateToolOutcome> | void
}

/**
 * One frame of the script in an error's stack, in the coordinates of the run's `js` (1-based
 * line and UTF-16 column, as V8 prints them); `function` is V8's name for it, absent when
 * anonymous. The host maps it to the user's script with the compile step's source map.
 */
export interface JsFrame {
  line: number
  column: number
  function?: string
}

/** A run's `error`: a name a program can switch on, a message, and where in `js` it was thrown. */
export interface IsolateRunError {
  name: string
  message: string
  /** For an uncaught `ToolCallError`: the tool whose call failed. */
  toolName?: string
  /** The script's frames of the thrown error's stack, top first (absent when it had none). */
  frames?: JsFrame[]
}

/**
 * Something the script left behind that the model must hear about (issue 11; see
 * `run-warnings.ts`): tool calls it did not await, calls it had passed to `Promise.all` and the
 * like that were still running when it ended, or a rejection nothing handled. `frames`:
 * where the rejected error was created, as in {@link IsolateRunError}.
 */
export interface IsolateRunWarning {
  kind: 'unawaited-calls' | 'abandoned-calls' | 'kept-running' | 'unhandled-rejection'
  message: string
  frames?: JsFrame[]
  /**
   * With `unawaited-calls` and `abandoned-calls`: every call the warning is about (its message
   * names only the first few), its number in the run (`IsolateToolCall.callId`) and how the
   * message names it (its tool and the start of its arguments), for the host to word
   * (`withApprovalsNotMade`); never in a `run_code` value (`scriptWarning` drops it).
   */
  calls?: { readonly id: number; readonly call: string }[]
}

/** How a run ended. */
export type RunStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'cancelled'

/** One captured console line. */
export interface IsolateLogEntry {
  level: LogLevel
  text: string
}

/** The outcome of a run (`runInIsolate`, `IsolateSupervisor.run`). */
export interface IsolateRunResult {
  status: RunStatus
  /** The parsed JSON of the script's return value (absent when it returned `undefined`). */
  value?: unknown
  /** Instead of `value` when the request asked for `valueAsJson`: the return value's JSON text. */
  valueJson?: string
  /**
   * For `error`: the uncaught error's name and message (or why the return value could not be
   * carried). For `timeout`/`memory`/`cancelled`: which limit, its value, what used it and what
   * to do (see `run-endings.ts`).
   */
  error?: IsolateRunError
  /** What the script left behind (absent when nothing): calls not awaited, rejections nobody handled. */
  warnings?: IsolateRunWarning[]
  logs: IsolateLogEntry[]
  /** Calls handed to `dispatch`. Counted where `dispatch` runs, so true after a worker crash. */
  toolCalls: number
  /** Wall-clock duration of the run in ms. */
  durationMs: number
  /** With a wall-clock deadline's `timeout`: what its message was made from, for the host (never in a `run_code` value). */
  deadline?: DeadlineAccount
  /**
   * With any other ending the script did not choose (a cancel, the CPU time or memory limit, a
   * failure of the isolate or its worker): the names of the calls still in flight then, for the
   * host to word (`withStoppedCalls`, never in a `run_code` value). Absent when there were none.
   */
  stoppedCalls?: readonly string[]
}

/**
 * Runs a worker serves before it is replaced (`IsolateSupervisorOptions.recycleAfterRuns`): the
 * bound on isolated-vm's residue, 0.4-0.8 KB a disposed isolate that nothing frees, so a few MB a
 * worker. Its own heap is collected every `FULL_GC_EVERY_RUNS` (run-housekeeping.ts). Over 30,000
 * runs of two workers, sampled every 300 runs (issue 12, 2026-12-04): every 2,000 runs 143-160 MB,
 * every 5,000 145-160 MB, every 10,000 152-170 MB; a fresh worker starts 5-10 MB below a warmed one.
 */
export const DEFAULT_RECYCLE_AFTER_RUNS = 5_000

/** Options of an `IsolateSupervisor`. Durations in ms. */
export interface IsolateSupervisorOptions {
  /** Isolates the worker keeps prepared (default 2; see `IsolatePoolOptions.size`). */
  poolSize?: number
  /** Heap limit in MB of the worker's pooled isolates (default 128). Other limits bypass the pool. */
  memoryMb?: number
  /**
   * Slack in ms the worker gets past a run's `wallClockMs` before the supervisor gives up on it
   * (status `timeout`, worker recycled), and the time a `cancel` may take to be confirmed before
   * the run resolves `cancelled` anyway (worker recycled); a cancel during a step that may hold
   * the worker resolves within `HELD_CANCEL_MS` (100 ms), and the worker is recycled if it has not
   * spoken `graceMs` after the cancel. Default 1 000.
   */
  graceMs?: number
  /**
   * How long in ms a retired worker (after a catastrophe, a `memory` run, an unanswered deadline
   * or cancel) may keep finishing its other runs before it is SIGKILLed; those runs then resolve
   * `error`. Default 30 000.
   */
  drainGraceMs?: number
  /**
   * Runs a worker serves before it is replaced, 0 for never (default
   * `DEFAULT_RECYCLE_AFTER_RUNS`, 5,000). Every isolate isolated-vm creates and disposes leaves
   * native memory behind in its process that nothing can free (0.4-0.8 KB, `npm run bench --
   * memory`; issue 12), so a
   * worker that served runs without end would grow without end. The replacement starts while the
   * old worker keeps serving; new runs go to it once it is ready, and the old one ends when its
   * last run has. A replacement starts only while no retired worker is still finishing its runs.
   */
  recycleAfterRuns?: number
  /**
   * Runs the supervisor's first worker serves before it is replaced (default `recycleAfterRuns`):
   * a group staggers its workers' replacements with it, so they are not replaced together.
   */
  firstRecycleAfterRuns?: number
  /**
   * Asked when the host sends a run to a worker, or answers one, that serves one run: whether the
   * step that message starts may run on the worker's main thread, holding the worker until it
   * ends (`WorkerRunMessage.mayBlock`, `WorkerAnswersMessage.mayBlock`). A group lets it while another of its workers stands idle
   * (`step-permission.ts`). Default: never.
   */
  mayBlock?: () => boolean
  /** The worker's main module (default `isolate-worker-entry.ts` next to this file). */
  entry?: string
  /**
   * Longest the worker's start may take, in ms, before it is killed and the waiting runs fail
   * (default `DEFAULT_START_TIMEOUT_MS`, 60 s): a safety limit for a hung start.
   */
  startTimeoutMs?: number
}
