/**
 * The `ask` branch of a pre-execute decision (SPEC S5.1, S5.3, S8.1, S8.2): one
 * `approval/request` waterfall whose innermost answer is `unavailable`, so a deployment with no
 * responder denies. Only a literal `allowed-once` lets the call run, and it covers this call only.
 */
import type { Context } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'

const OUTCOMES: ReadonlySet<string> = new Set(['allowed-once', 'denied', 'unavailable'])

/**
 * Ask the responders on `approval/request`. Never throws: a throwing responder or an answer that
 * is not one of the three outcomes counts as `denied`.
 */
export async function requestApproval(ctx: Context, request: ApprovalRequest): Promise<ApprovalOutcome> {
  return (await askResponders(ctx, request)).outcome
}

/**
 * {@link requestApproval}, saying when a `denied` is a responder's failure rather than its answer:
 * `failure` describes the throw or the answer that is no outcome (`'yes'`, `{ kind: ... }`), so the
 * denial can say the responder is broken instead of that someone refused. Never throws.
 */
export async function askResponders(ctx: Context, request: ApprovalRequest): Promise<{ outcome: ApprovalOutcome; failure?: string }> {
  try {
    const outcome: unknown = await ctx.waterfall('approval/request', request, () => 'unavailable' as const)
    if (typeof outcome === 'string' && OUTCOMES.has(outcome)) return { outcome: outcome as ApprovalOutcome }
    const shown = typeof outcome === 'string' ? JSON.stringify(outcome) : describeThrown(outcome)
    return { outcome: 'denied', failure: `it answered ${shown.slice(0, 100)}, not 'allowed-once', 'denied' or 'unavailable'` }
  } catch (error) {
    return { outcome: 'denied', failure: `it threw: ${describeThrown(error).slice(0, 200)}` }
  }
}
