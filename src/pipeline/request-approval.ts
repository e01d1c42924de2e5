/**
 * The `ask` branch of a pre-execute decision (SPEC S5.1, S5.3, S8.1, S8.2): one
 * `approval/request` waterfall whose innermost answer is `unavailable`, so a deployment with no
 * responder denies. Only a literal `allowed-once` lets the call run, and it covers this call only.
 */
import type { Context } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import { ApprovalNotObtainedError } from '../errors/ptc-error.ts'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'

const OUTCOMES: ReadonlySet<string> = new Set(['allowed-once', 'denied', 'unavailable'])

/**
 * Ask the responders on `approval/request`. Never throws: a throwing responder or an answer that
 * is not one of the three outcomes counts as `denied`, a responder that throws an
 * {@link ApprovalNotObtainedError} (it could not ask) as `unavailable`.
 */
export async function requestApproval(ctx: Context, request: ApprovalRequest): Promise<ApprovalOutcome> {
  return (await askResponders(ctx, request)).outcome
}

/** Why a responder could not get an answer, and what to do: an {@link ApprovalNotObtainedError}'s message and advice. */
export interface NotObtained {
  reason: string
  advice: string
}

/**
 * {@link requestApproval}, saying when a `denied` is not someone's answer: `notObtained` when a
 * responder threw an {@link ApprovalNotObtainedError} (its channel could not ask: an MCP client's
 * elicitation failed), so the denial says the approval could not be obtained and why; `failure`
 * describes any other throw or an answer that is no outcome (`'yes'`, `{ kind: ... }`), so the
 * denial can say the responder is broken instead of that someone refused. Never throws.
 */
export async function askResponders(ctx: Context, request: ApprovalRequest): Promise<{ outcome: ApprovalOutcome; failure?: string; notObtained?: NotObtained }> {
  try {
    const outcome: unknown = await ctx.waterfall('approval/request', request, () => 'unavailable' as const)
    if (typeof outcome === 'string' && OUTCOMES.has(outcome)) return { outcome: outcome as ApprovalOutcome }
    const shown = typeof outcome === 'string' ? JSON.stringify(outcome) : describeThrown(outcome)
    return { outcome: 'denied', failure: `it answered ${shown.slice(0, 100)}, not 'allowed-once', 'denied' or 'unavailable'` }
  } catch (error) {
    // No answer came, so none was `denied`: the channel is as good as absent (S5.3).
    if (ApprovalNotObtainedError.isInstance(error)) return { outcome: 'unavailable', notObtained: notObtained(error) }
    return { outcome: 'denied', failure: `it threw: ${describeThrown(error).slice(0, 200)}` }
  }
}

/** The reason and advice of `error`, cut to a readable length; never throws (a responder may be anyone's code). */
function notObtained(error: ApprovalNotObtainedError): NotObtained {
  let advice: unknown
  try {
    advice = (error.details as { advice?: unknown } | undefined)?.advice
  } catch {}
  // The denial adds its own full stop after the reason.
  return { reason: describeThrown(error).slice(0, 500).replace(/\.+$/, ''), advice: typeof advice === 'string' ? advice.slice(0, 500) : '' }
}
