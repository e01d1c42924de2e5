/**
 * The calls of each `run_code` run that are waiting for approval (SPEC S5.1, S8.1, S9.1), so that
 * a run whose deadline passes during that wait says so: the time went to an approval prompt nobody
 * answered, not to the calls, and the advice is to answer sooner or allow more time, not to make
 * fewer calls. One outermost `approval/request` listener sees every request, whichever responder
 * answers it, and keeps the unanswered ones by their run (the calls' `parentToken`, S9.5).
 */
import type { Context } from 'cordis'
import { isThenable } from '../pipeline/thenable.ts'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'
import type { IsolateRunResult, IsolateRunWarning } from './isolate/isolate-contract.ts'
import { argsPreview } from './isolate/run-warnings.ts'
import { callNumberOf } from './isolate/tool-call-queue.ts'
import { approvalDeadlineEnding, codeRanMostly, deadlineEndingWithout, endedAtWallClock, runningWithout, stoppedCallsSentences, withStoppedCalls, withUnansweredApprovals } from './isolate/run-endings.ts'

/**
 * For a caller that answers a cancel itself (the pipeline, for `run_code`, S6.3): when `signal`
 * aborts during the run, `note` gets the sentences naming the calls in flight then, `running`
 * (the run's calls the host has started, by pairing id: the bridge's `running`) less those
 * awaiting approval; not called when there were none.
 */
export interface CancelWatch {
  signal: AbortSignal
  running: ReadonlyMap<string, string>
  note: (sentences: string) => void
}

/** One call's approval still unanswered: its tool, its arguments (for {@link shownCall}), and when it was asked (`performance.now()`). */
interface Wait {
  name: string
  args: unknown
  since: number
}

/** See the file comment; one for each PTC service. */
export class ApprovalWaits {
  /** The unanswered approvals of each run in flight, by the run's token, then the call's id. */
  readonly #runs = new Map<symbol, Map<string, Wait>>()

  /** Listens on `ctx`'s `approval/request` (prepended: outermost) for as long as `ctx` lives. */
  constructor(ctx: Context) {
    ctx.on('approval/request', (request, next) => this.#watch(request, next), { prepend: true })
  }

  /**
   * Runs `run`, the isolate part of the run whose calls carry `parentToken`, and returns its
   * result. When the run ended at its wall-clock deadline while calls were waiting for approval,
   * and the longest of those waits took at least half of `deadlineMs` (the run's whole deadline,
   * in ms), the result's error becomes the approval's ending (`approvalDeadlineEnding`); after a
   * shorter wait, or when the script's code ran for most of the time beside it (`codeRanMostly`:
   * the wait did not keep the script from finishing), the error keeps its account of the time and says those calls were not made for
   * want of an answer (`withUnansweredApprovals`), its calls still running counted without them.
   * A run stopped otherwise than by the script or its wall clock (a cancel, the CPU time or memory
   * limit, a failure) says which calls were in flight then (`withStoppedCalls`): those awaiting
   * approval were not made, the others may have taken effect.
   * The result's `deadline` and `stoppedCalls` (the isolate side's accounts) are taken off either way.
   * @throws whatever `run` throws (an infrastructure failure); the run is forgotten either way.
   */
  async during(parentToken: symbol, deadlineMs: number, run: () => Promise<IsolateRunResult>, cancel?: CancelWatch): Promise<IsolateRunResult> {
    const waits = new Map<string, Wait>()
    this.#runs.set(parentToken, waits)
    const awaitingNames = () => [...waits.values()].map((wait) => wait.name)
    const awaitingShown = () => [...waits.values()].map(shownCall)
    // Before the run's own listeners, so the calls are named as they were when the stop came.
    const onAbort = cancel && (() => {
      const said = stoppedCallsSentences([...cancel.running.values()], awaitingNames(), awaitingShown())
      try {
        if (said !== '') cancel.note(said)
      } catch {
        // The caller's own callback failed: its note is lost, never the host (an abort listener's throw would end the process).
      }
    })
    if (onAbort !== undefined) cancel!.signal.addEventListener('abort', onAbort, { once: true })
    let result: IsolateRunResult
    let deadline: IsolateRunResult['deadline']
    let stoppedCalls: IsolateRunResult['stoppedCalls']
    try {
      ;({ deadline, stoppedCalls, ...result } = await run())
    } finally {
      this.#runs.delete(parentToken)
      if (onAbort !== undefined) cancel!.signal.removeEventListener('abort', onAbort)
    }
    const awaiting = awaitingNames()
    if (awaiting.length > 0 && result.warnings !== undefined) result = { ...result, warnings: withApprovalsNotMade(result.warnings, callNumbers(waits.keys())) }
    // Stopped by a cancel, a limit or a failure: the calls in flight then, those only awaiting approval apart.
    if (stoppedCalls !== undefined && result.error !== undefined) return { ...result, error: withStoppedCalls(result.error, stoppedCalls, awaiting, awaitingShown()) }
    if (awaiting.length === 0 || result.status !== 'timeout' || result.error === undefined || !endedAtWallClock(result.error)) return result
    const now = performance.now()
    const waitedMs = Math.max(...[...waits.values()].map((wait) => now - wait.since))
    // A short wait, or code that ran most of the time beside it (`codeRanMostly`): the account stands.
    if (waitedMs < deadlineMs / 2 || (deadline !== undefined && 'spent' in deadline && codeRanMostly(deadline.spent))) {
      // The calls awaiting approval were counted as running, but were never made: said again without them.
      const account = deadline === undefined ? result.error : deadlineEndingWithout(deadline, awaiting).error
      return { ...result, error: withUnansweredApprovals(account, awaitingShown()) }
    }
    // Calls that were running beside them (not awaiting approval) may have taken effect: said too.
    const running = deadline === undefined ? [] : runningWithout(deadline, awaiting)
    const { error } = approvalDeadlineEnding(deadlineMs, awaitingShown(), Math.min(waitedMs, deadlineMs), running)
    return { ...result, error }
  }

  /**
   * A request of a tracked run's call is kept until it is answered. One cut short by the end of
   * its run (its caller signal, the run's, aborted) stays kept: it was unanswered at the end.
   */
  #watch(request: ApprovalRequest, next: () => ApprovalOutcome | Promise<ApprovalOutcome>): ApprovalOutcome | Promise<ApprovalOutcome> {
    const { callId, name, parentToken, callerSignal } = request.execution
    const waits = parentToken === undefined ? undefined : this.#runs.get(parentToken)
    if (waits === undefined) return next()
    // Kept from the moment it is asked: a cancel may come from inside a responder.
    waits.set(callId, { name, args: request.execution.arguments, since: performance.now() })
    let answer: ApprovalOutcome | Promise<ApprovalOutcome>
    try {
      answer = next()
    } catch (error) {
      waits.delete(callId)
      throw error
    }
    if (!isThenable(answer)) {
      waits.delete(callId)
      return answer
    }
    return Promise.resolve(answer).finally(() => {
      if (!callerSignal.aborted) waits.delete(callId)
    })
  }
}

/** Calls a sentence of {@link withApprovalsNotMade} names; the rest are counted. */
const NAMED_NOT_MADE = 10

/** The numbers in their run (`IsolateToolCall.callId`) of the calls of code with pipeline ids `callIds`. */
function callNumbers(callIds: Iterable<string>): number[] {
  const numbers: number[] = []
  for (const callId of callIds) {
    const number = callNumberOf(callId)
    if (number !== undefined) numbers.push(number)
  }
  return numbers
}

/**
 * `warnings` with a sentence added to each about calls left behind by the script (the isolate
 * side writes them, knowing nothing of approvals) that names those of its `calls` whose numbers
 * are in `awaiting` (the run's calls still awaiting approval, `IsolateToolCall.callId`): they were
 * still awaiting approval when the run ended, so they were not made, whatever the warning said of
 * them being cancelled (SPEC S5.1, S8.1). Another call of the same tool in the warning was made.
 */
export function withApprovalsNotMade(warnings: readonly IsolateRunWarning[], awaiting: readonly number[]): IsolateRunWarning[] {
  const ids = new Set(awaiting)
  return warnings.map((warning) => {
    const notMade = warning.calls?.filter((call) => ids.has(call.id)) ?? []
    if (notMade.length === 0) return warning
    const one = notMade.length === 1
    const more = notMade.length > NAMED_NOT_MADE ? `, and ${notMade.length - NAMED_NOT_MADE} more` : ''
    const named = notMade.slice(0, NAMED_NOT_MADE).map((call) => call.call).join(', ') + more
    return { ...warning, message: `${warning.message} Among them, ${one ? 'this call was' : `these ${notMade.length} calls were`} still awaiting approval when the run ended (nobody answered the prompt), so ${one ? 'it was' : 'they were'} not made: ${named}.` }
  })
}

/**
 * How an ending names a call awaiting approval: its tool and the start of its arguments' JSON, as
 * a run's warnings name a call (`argsPreview`). Made only for an ending that names it; never throws.
 */
function shownCall({ name, args }: Wait): string {
  try {
    return `${name} ${argsPreview(JSON.stringify(args) ?? 'null')}`
  } catch {
    return `${name} (arguments not shown)`
  }
}
