/**
 * How a `run_code` run ends when the script did not end it itself, written in one place (SPEC S9;
 * issue 16): the status and the readable `error` a model gets. Each message says what ended the
 * run, the limit and its value, what used the time or memory, and what to do next. The check
 * step's endings are in `../check-endings.ts`.
 */
import { describeNames, ms, namesWithout, stillRunningCaution, withSentence } from './ending-words.ts'
import type { RunStatus } from './isolate-contract.ts'

/** A run's `error`: a name a program can switch on and a message for the model. */
export interface RunError {
  name: string
  message: string
}

/** A status with its error, before logs, counts and duration are added. */
export interface RunEnding {
  status: RunStatus
  error: RunError
  /** A wall-clock deadline's account, for the host to word again; see {@link DeadlineAccount}. */
  deadline?: DeadlineAccount
}

/**
 * What a wall-clock deadline's message was made from: the whole deadline in ms and where its time
 * went ({@link deadlineEnding}), or only the calls still running when the host's watchdog ended
 * the run ({@link unansweredDeadlineEnding}: no `spent`). The run's result carries it to the PTC
 * service, which knows more: the calls "still running" that were only awaiting approval were never
 * made, so it says the message again without them ({@link deadlineEndingWithout}, called by
 * `ApprovalWaits.during`, which also takes the account off the result).
 */
export type DeadlineAccount = { limitMs: number; spent: TimeSpent } | { limitMs: number; toolsRunning: readonly string[] }

/** The names of `account`'s calls still running, with `notRunning` (names, one occurrence each) taken out. */
export function runningWithout(account: DeadlineAccount, notRunning: readonly string[]): string[] {
  return namesWithout('spent' in account ? account.spent.toolsRunning : account.toolsRunning, notRunning)
}

/** The deadline ending `account` was made from, said again without `notRunning` ({@link runningWithout}). */
export function deadlineEndingWithout(account: DeadlineAccount, notRunning: readonly string[]): RunEnding {
  const toolsRunning = runningWithout(account, notRunning)
  return 'spent' in account ? deadlineEnding(account.limitMs, { ...account.spent, toolsRunning }) : unansweredDeadlineEnding(account.limitMs, toolsRunning)
}

/**
 * Where the time of a run went, in ms, for a deadline message. `runningMs` is wall time with the
 * script's code running in the isolate or queued to run there (computing, whether or not a loaded
 * machine gave it a core; `cpuMs` is the CPU it got); `toolWaitMs` the time with at least one tool call running or
 * queued; `isolateWaitMs` the time before the script could start, waiting for a fresh isolate
 * (default 0); what is left of `wallMs` is time spent waiting on nothing (a promise that never settles).
 */
export interface TimeSpent {
  checkMs: number
  runningMs: number
  cpuMs: number
  toolWaitMs: number
  isolateWaitMs?: number
  wallMs: number
  /** Names of the tool calls still running at the deadline. */
  toolsRunning: readonly string[]
}

/** How every ending of the run's wall-clock deadline begins (see {@link endedAtWallClock}). */
const WALL_CLOCK_MISSED = 'The script did not finish within the wall-clock limit of'

/**
 * Whether `error` is an ending of the run's wall-clock deadline ({@link deadlineEnding},
 * {@link unansweredDeadlineEnding}), not of another limit (the CPU time's) or the script's own.
 */
export function endedAtWallClock(error: RunError): boolean {
  return error.name === 'TimeoutError' && error.message.startsWith(WALL_CLOCK_MISSED)
}

/** The caller aborted the run's signal (status `cancelled`). */
export function cancelledError(): RunError {
  return { name: 'CancelledError', message: 'The run was cancelled by the caller before the script finished; no further tool calls were made.' }
}

/**
 * The wall-clock deadline passed (status `timeout`). `limitMs` is the whole deadline the caller
 * set (checking included); the message names the largest use of it and the advice for that, and
 * that calls still running may have taken effect, whatever the largest use. Code that ran for more
 * than half of the run's time ({@link codeRanMostly}) is named whatever else overlapped it for
 * longer: calls the script left running beside it did not keep it from finishing, its code did.
 */
export function deadlineEnding(limitMs: number, spent: TimeSpent): RunEnding {
  const isolateWaitMs = spent.isolateWaitMs ?? 0
  const idleMs = Math.max(0, spent.wallMs - spent.runningMs - spent.toolWaitMs - isolateWaitMs)
  const running = spent.toolsRunning.length === 0 ? '' : ` (${describeNames(spent.toolsRunning)} still running)`
  const toolWait = { ms: spent.toolWaitMs, what: `waiting on tool calls${running}`, advice: toolWaitAdvice(spent.toolsRunning.length) }
  const uses = [
    { ms: spent.checkMs, what: 'type-checking and compiling', advice: "Simplify the script's types or raise timeoutMs." },
    { ms: spent.runningMs, what: "running the script's code", advice: spent.cpuMs * 2 < spent.runningMs ? `Its code had a core for only ${ms(spent.cpuMs)} of that: the machine was busy (other scripts at once); raise timeoutMs or run fewer scripts at once.` : 'Look for an endless loop or do less computation in the script.' },
    toolWait,
    { ms: idleMs, what: 'waiting on nothing: no code ran and no tool call was pending', advice: 'The script awaited a promise that never settles; make sure everything it awaits settles.' },
    { ms: isolateWaitMs, what: 'waiting for a fresh isolate before the script could start', advice: 'The isolates made ahead were taken by other scripts at once, or this run needed its own (a memoryMb other than the default); raise timeoutMs or run fewer scripts at once.' },
  ]
  const most = codeRanMostly(spent) ? uses[1]! : uses.reduce((best, use) => (use.ms > best.ms ? use : best))
  const account = `type-checking and compiling ${ms(spent.checkMs)}, running code ${ms(spent.runningMs)} (CPU ${ms(spent.cpuMs)}), waiting on tool calls ${ms(spent.toolWaitMs)}, waiting on nothing ${ms(idleMs)}${isolateWaitMs >= 1 ? `, waiting for a fresh isolate ${ms(isolateWaitMs)}` : ''}`
  // The tool wait's advice has the caution already; any other use's gets it after.
  const caution = spent.toolsRunning.length > 0 && most !== toolWait ? ` ${stillRunningCaution(spent.toolsRunning.length)}` : ''
  return {
    status: 'timeout',
    error: { name: 'TimeoutError', message: `${WALL_CLOCK_MISSED} ${limitMs} ms (wallClockMs); most of it went to ${most.what} (${account}). ${most.advice}${caution}` },
    deadline: { limitMs, spent },
  }
}

/** Whether the script's code ran for more than half of the run's time, type-checking and the wait for an isolate included (`spent`: a deadline's account). */
export function codeRanMostly(spent: TimeSpent): boolean {
  return spent.runningMs * 2 > spent.checkMs + spent.wallMs
}

/**
 * The wall-clock deadline passed while tool calls were waiting for approval (a person at a
 * prompt), and that wait took most of the deadline (status `timeout`; SPEC S5.1, S8.1): the time
 * went to a question nobody answered, so the advice is to answer sooner or allow more time, not
 * to make fewer calls.
 * `awaiting`: the calls whose approval was still unanswered, as the message names them (their
 * tools, or with their arguments as the PTC service shows them); `waitedMs`: how long the
 * longest of them had waited, in ms; `running`: the names of the calls that were running beside
 * them, which may have taken effect ({@link stillRunningCaution}).
 */
export function approvalDeadlineEnding(limitMs: number, awaiting: readonly string[], waitedMs: number, running: readonly string[] = []): RunEnding {
  const one = awaiting.length === 1
  const caution = running.length === 0 ? '' : ` Still running then: ${describeNames(running)}. ${stillRunningCaution(running.length)}`
  return {
    status: 'timeout',
    error: {
      name: 'TimeoutError',
      message: `${WALL_CLOCK_MISSED} ${limitMs} ms (wallClockMs): for ${ms(waitedMs)} of it the script waited for approval of ${one ? 'a tool call' : 'tool calls'} (${describeNames(awaiting)}), and nobody answered the approval prompt in time, so ${one ? 'the call was' : 'the calls were'} not made. Answer the approval prompt sooner, or raise timeoutMs to leave time for the answer.${caution}`,
    },
  }
}

/**
 * `error` (a wall-clock ending whose time went mostly elsewhere, {@link deadlineEnding}) with a
 * sentence added naming the calls still awaiting approval at the deadline (`awaiting`, as the
 * message names them): nobody answered the approval prompt, so they were not made (SPEC S5.1, S8.1). The wait
 * was short, so the account and advice before it stay.
 */
export function withUnansweredApprovals(error: RunError, awaiting: readonly string[]): RunError {
  const one = awaiting.length === 1
  const sentence = `At the deadline ${one ? 'a tool call was' : 'tool calls were'} still awaiting approval (${describeNames(awaiting)}): nobody answered the approval prompt, so ${one ? 'the call was' : 'the calls were'} not made.`
  return withSentence(error, sentence)
}

/**
 * `error` (an ending the script did not choose, other than the wall clock's, which words its own:
 * a cancel, the CPU time or memory limit, the isolate's or its worker's failure) with what became
 * of the calls in flight then (`inFlight`, names): those of `awaiting` (names, one occurrence
 * each) were waiting for approval and were not made (SPEC S5.1, S8.2); the others were stopped
 * and may have taken effect (the script cannot know: a write may have landed). `awaitingShown`:
 * how the sentence names those (default their names; the PTC service's show each one's arguments
 * too, to tell them from a call of the same tool that was made). `error` as it is when none was in flight.
 */
export function withStoppedCalls(error: RunError, inFlight: readonly string[], awaiting: readonly string[] = [], awaitingShown: readonly string[] = awaiting): RunError {
  const said = stoppedCallsSentences(inFlight, awaiting, awaitingShown)
  return said === '' ? error : withSentence(error, said)
}

/** What {@link withStoppedCalls} adds to a message: a sentence for the running calls, one for those awaiting approval (named by `awaitingShown`); `''` when none. */
export function stoppedCallsSentences(inFlight: readonly string[], awaiting: readonly string[], awaitingShown: readonly string[] = awaiting): string {
  const running = namesWithout(inFlight, awaiting)
  const said: string[] = []
  const one = running.length === 1
  if (running.length > 0) said.push(`${one ? 'A tool call was' : 'Tool calls were'} still running when the run stopped (${describeNames(running)}): ${one ? 'it was' : 'they were'} stopped then and may or may not have taken effect: check before making ${one ? 'it' : 'them'} again.`)
  if (awaiting.length > 0) said.push(`${awaiting.length === 1 ? 'A tool call was' : 'Tool calls were'} awaiting approval when the run stopped (${describeNames(awaitingShown)}): ${awaiting.length === 1 ? 'it was' : 'they were'} not made.`)
  return said.join(' ')
}

/**
 * `ending` with a sentence for the calls a step held on the isolate worker's main thread made
 * before a limit ended the run in it (`withdrawn`, their tools, as far as the host had them):
 * the worker sends nothing until the step returns, so they were never made
 * (`IsolateRunRequest.onStepHere`); calls still batched in the isolate never reached the host,
 * hence "at least". As it is when none.
 */
export function withWithdrawnCalls(ending: RunEnding, withdrawn: readonly string[]): RunEnding {
  if (withdrawn.length === 0) return ending
  const said = `The tool calls the script made in the code the limit stopped, without awaiting them, were not made (at least ${describeNames(withdrawn)}): a call leaves only once the script pauses (at an await).`
  return { ...ending, error: withSentence(ending.error, said) }
}

/** The isolate's CPU time passed `cpuTimeMs` (status `timeout`). */
export function cpuEnding(cpuTimeMs: number): RunEnding {
  return { status: 'timeout', error: { name: 'TimeoutError', message: `The script used more than its CPU time limit of ${cpuTimeMs} ms (cpuTimeMs). Look for an endless loop or do less computation in the script.` } }
}

/**
 * A step of the script run on the isolate worker's main thread (`IsolateRunRequest.stepHere`)
 * ran, in wall time, as long as the CPU time it had left, without the CPU time itself running
 * out (`cpuMs`, under `cpuTimeMs`: the machine was busy). Such a step can only be timed by the
 * clock, so the CPU limit stopped it (status `timeout`).
 */
export function cpuStepEnding(cpuTimeMs: number, cpuMs: number): RunEnding {
  const message = `The script reached its CPU time limit of ${cpuTimeMs} ms (cpuTimeMs): code that runs without pausing for a tool call is stopped once it has run, in elapsed time, as long as the CPU time the script had left (it had used ${Math.round(cpuMs)} ms of CPU; the machine was busy). Look for an endless loop or do less computation in the script.`
  return { status: 'timeout', error: { name: 'TimeoutError', message } }
}

/** The isolate's heap passed `memoryMb` and isolated-vm disposed it (status `memory`). */
export function memoryEnding(memoryMb: number): RunEnding {
  return { status: 'memory', error: { name: 'MemoryError', message: `The script exceeded the isolate memory limit of ${memoryMb} MB (memoryMb). Process data in smaller pieces and keep less of it in memory.` } }
}

/**
 * isolated-vm reported a catastrophic error (status `memory`), typically a heap grown past its
 * limit or an array operation V8 cannot size. `restarted`: the isolate worker process was replaced (process isolation).
 */
export function catastropheEnding(catastrophe: string, memoryMb: number, restarted: boolean): RunEnding {
  const after = restarted ? '; the isolate worker process was restarted and the next run uses a fresh worker' : ''
  return {
    status: 'memory',
    error: { name: 'MemoryError', message: `The isolate failed catastrophically (${catastrophe}), typically from exhausting its ${memoryMb} MB memory limit (memoryMb) with values that kept growing, or from an array operation sized past V8's own limits, which no memoryMb allows${after}. Process data in smaller pieces.` },
  }
}

/**
 * A step held on the isolate worker's main thread ran past its timeout, `byCpu` the CPU time the
 * run had left (`cpuTimeMs`) or else its wall clock (`wallClockMs`), in work V8 could not
 * interrupt (one built-in call on a huge array, or collecting a heap at its limit over and over),
 * and the worker's watchdog ended the process (step-watchdog.ts; status `timeout`).
 */
export function stepOverrunEnding(byCpu: boolean, limits: { cpuTimeMs: number; wallClockMs: number }): RunEnding {
  const limit = byCpu ? `CPU time limit of ${limits.cpuTimeMs} ms (cpuTimeMs)` : `wall-clock limit of ${limits.wallClockMs} ms (wallClockMs)`
  const message = `The script ran past its ${limit} inside one operation that could not be interrupted (a single built-in call on a huge array or string, such as fill or sort of millions of elements, or memory nearly full, collected over and over), so the isolate worker process was stopped; the next run uses a fresh worker. Work on smaller pieces of data, and keep less of it in memory.`
  return { status: 'timeout', error: { name: 'TimeoutError', message } }
}

/** The isolate worker process died under the run, or was stopped (status `error`). */
export function workerCrashEnding(what: string): RunEnding {
  return { status: 'error', error: { name: 'WorkerCrashError', message: `the isolate worker process ${what}; the run was stopped; the next run uses a fresh worker.` } }
}

/**
 * The host was disposed (it is shutting down) while the run was pending (status `cancelled`), in
 * either isolation mode: the isolate supervisor's runs, and an inline run the PTC service stops.
 */
export function disposedEnding(): RunEnding {
  return { status: 'cancelled', error: { name: 'CancelledError', message: 'The host was disposed (it is shutting down) before the script finished; the run was stopped.' } }
}

/**
 * The host's watchdog fired: the worker did not answer by the deadline plus its grace, so it was
 * replaced (status `timeout`). `toolsRunning`: calls the host was still running for the run. With
 * none, what most likely kept the worker from answering was the script's own code (a package
 * trial: one `String(7n ** 50000000n)` was advised to make fewer calls), so the advice is about
 * the code; a starved or stopped worker process is the other cause (a review), hence "most likely".
 */
export function unansweredDeadlineEnding(limitMs: number, toolsRunning: readonly string[]): RunEnding {
  const running = toolsRunning.length === 0 ? '' : ` Still running then: ${describeNames(toolsRunning)}.`
  const advice = toolsRunning.length === 0 ? UNANSWERED_CODE_ADVICE : toolWaitAdvice(toolsRunning.length)
  return {
    status: 'timeout',
    error: { name: 'TimeoutError', message: `${WALL_CLOCK_MISSED} ${limitMs} ms (wallClockMs), and the isolate worker process did not answer in time, so it was restarted.${running} ${advice}` },
    deadline: { limitMs, toolsRunning },
  }
}

/** The advice of {@link unansweredDeadlineEnding} when no tool call was running. */
const UNANSWERED_CODE_ADVICE =
  "No tool call of this run was running: most likely the script's own code kept the worker busy past the deadline (an endless loop, or one operation V8 cannot interrupt, such as turning a BigInt of millions of digits into a string). Look for an endless loop or do less computation in the script."

/**
 * What to do when the deadline went to tool calls. With `running` calls still going at the
 * deadline (stopped then, through their signal), the script cannot know whether they took
 * effect (a write may have landed), so it says so before suggesting a slower tool's remedies.
 */
function toolWaitAdvice(running: number): string {
  if (running === 0) return 'Make fewer or smaller calls, or run the work in parts.'
  return `${stillRunningCaution(running)} If a tool is slow or hangs, ask it for less or raise timeoutMs; otherwise make fewer calls, or run the work in parts.`
}

/** A script too deeply nested for V8's parser, as its compile in the isolate reports it (isolate-run.ts). */
export const TOO_DEEP = "The script nests too deeply for V8's parser (Maximum call stack size exceeded); no code ran. Flatten its deepest nesting (brackets, calls or expressions inside one another)."

/** What stopped a run, as warnings name it (`… until the memory limit (128 MB) stopped it`). */
export const WALL_CLOCK_LIMIT = "the run's wall-clock limit"
export const memoryLimitName = (memoryMb: number): string => `the memory limit (${memoryMb} MB)`
export const cpuLimitName = (cpuTimeMs: number): string => `the CPU limit (${cpuTimeMs} ms)`
