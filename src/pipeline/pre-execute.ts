/**
 * Everything that decides whether a call runs (SPEC S3, S4, S5.1–S5.3, S8.1): the
 * `tools/pre-execute` waterfall, then the guards, then, for `ask`, one approval. The answer is a
 * {@link PreExecuteVerdict}; the body has not run yet.
 */
import type { Context } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import type { JsonValue, PreToolDecision, ToolGuard } from '../tools/types.ts'
import { CANCELLED, Execution, untilCallerStop } from './execution.ts'
import { runGuards } from './guards.ts'
import { type EventHooks, waterfall } from './cordis-adapter.ts'
import { materializeJson } from './materialize.ts'
import { askResponders } from './request-approval.ts'
import { isThenable } from './thenable.ts'

/** What pre-execution decided: run the body, deny with a model-facing reason, or cancel (S5.1). */
export type PreExecuteVerdict =
  | { readonly kind: 'run' }
  | { readonly kind: 'deny'; readonly message: string; readonly info?: JsonValue }
  | { readonly kind: 'cancel' }

/** What the pre-execute stage reads: the hook table, the guards, and the context approvals go through. */
export interface PreExecuteHost {
  readonly ctx: Context
  readonly events: EventHooks
  guards(): Iterable<ToolGuard>
}

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const RUN: PreExecuteVerdict = Object.freeze({ kind: 'run' })
const CANCEL: PreExecuteVerdict = Object.freeze({ kind: 'cancel' })
const deny = (message: string, info?: JsonValue): PreExecuteVerdict => ({ kind: 'deny', message, ...(info !== undefined && { info }) })

/**
 * Decide whether `execution` runs. A throwing listener or an unknown decision denies
 * (fail-closed, S5.1); a guard's denial is final (S4.1); `ask` runs only on `allowed-once` (S5.3,
 * S8.1); the caller's stop during any of it cancels (S6.3). Never throws, never rejects.
 * Synchronous when every listener answers synchronously (the common case: each `await` of the
 * pipeline costs a microtask turn per call), a promise otherwise.
 */
export function preExecute(host: PreExecuteHost, execution: Execution): PreExecuteVerdict | Promise<PreExecuteVerdict> {
  let decision: PreToolDecision | Promise<PreToolDecision>
  try {
    decision = untilCallerStop(waterfall<PreToolDecision | Promise<PreToolDecision>>(host.events, 'tools/pre-execute', [execution], () => ALLOW), Execution.stopOf(execution))
  } catch (error) {
    return policyFailed(error)
  }
  if (isThenable(decision)) return Promise.resolve(decision).then((settled) => decide(host, execution, settled), policyFailed)
  return decide(host, execution, decision)
}

/** A listener threw or rejected: the caller's stop cancels, anything else denies (S5.1, S6.3). */
function policyFailed(error: unknown): PreExecuteVerdict {
  if (error === CANCELLED) return CANCEL
  return deny(`A policy check failed, so the call was denied: ${describeThrown(error)}`)
}

/** The waterfall's answer → the guards → `ask`'s approval (see {@link preExecute}). */
function decide(host: PreExecuteHost, execution: Execution, decision: PreToolDecision): PreExecuteVerdict | Promise<PreExecuteVerdict> {
  const stop = Execution.stopOf(execution)
  const kind = (decision as { kind?: unknown } | undefined)?.kind
  if (kind === 'deny') {
    const { reason, info } = decision as Extract<PreToolDecision, { kind: 'deny' }>
    return deny(typeof reason === 'string' && reason !== '' ? reason : 'Denied by policy.', safeJson(info))
  }
  if (kind === 'cancel') return CANCEL
  if (kind !== 'allow' && kind !== 'ask') return deny('A policy listener returned an unrecognized decision, so the call was denied.')

  // S4.1: guards after every pre-execute listener; only denials, so order cannot allow.
  const refusal = runGuards(host.guards(), execution)
  if (refusal !== undefined) return deny(refusal)

  if (kind === 'ask') {
    return ask(host.ctx, execution, decision as Extract<PreToolDecision, { kind: 'ask' }>).then((verdict) => (verdict.kind !== 'run' ? verdict : stop.aborted ? CANCEL : RUN))
  }
  return stop.aborted ? CANCEL : RUN
}

/**
 * S5.3, S8.1: one approval for this call only; no agent or no channel means a denial. The denial
 * says which: refused by someone, no responder, a broken responder, or a channel that could not
 * ask (`ApprovalNotObtainedError`: its reason and advice).
 */
async function ask(ctx: Context, execution: Execution, decision: Extract<PreToolDecision, { kind: 'ask' }>): Promise<PreExecuteVerdict> {
  const { reason, displayReason } = decision
  const why = typeof reason === 'string' && reason ? ` (${reason})` : ''
  if (execution.agent === undefined) return deny(`This call needs approval${why}, but it was made without an agent, so it was denied.`)
  let answer: Awaited<ReturnType<typeof askResponders>>
  try {
    answer = await untilCallerStop(
      askResponders(ctx, {
        execution,
        ...(typeof reason === 'string' && { reason }),
        ...(typeof displayReason === 'string' && { displayReason }),
      }),
      Execution.stopOf(execution),
    )
  } catch {
    return CANCEL // only the caller's stop rejects here: askResponders never throws
  }
  if (Execution.stopOf(execution).aborted) return CANCEL
  const { outcome, failure, notObtained } = answer
  if (outcome === 'allowed-once') return RUN
  // Nobody refused: the channel could not ask (an MCP client's elicitation failed), and says why.
  if (notObtained !== undefined) return deny(`This call needs approval${why}, but the approval could not be obtained, so the call was not made (nobody refused it): ${notObtained.reason}.${notObtained.advice ? ` ${notObtained.advice}` : ''}`)
  if (failure !== undefined) return deny(`This call needs approval${why}, but the approval responder failed (${failure}), so it was denied. Fix the responder: it answers 'allowed-once' or 'denied', or calls next().`)
  return deny(outcome === 'unavailable' ? `This call needs approval${why}, but no approval responder answered (none is registered, or each passed it on with next()), so it was denied. A person answers at a terminal or through an MCP client's elicitation; a program registers one with ctx.approval.respond.` : `Approval was refused${why}, so the call was not made. Do not ask again for the same call: do the work another way, or ask the user what they want.`)
}

/** A denial's structured identity, if it is lossless JSON; otherwise dropped. */
function safeJson(info: unknown): JsonValue | undefined {
  try {
    return info === undefined ? undefined : materializeJson(info)
  } catch {
    return undefined
  }
}
