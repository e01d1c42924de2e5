/**
 * The `ask` branch of a pre-execute decision (SPEC S5.1, S5.3, S8.1, S8.2): one
 * `approval/request` waterfall whose innermost answer is `unavailable`, so a deployment with no
 * responder denies. Only a literal `allowed-once` lets the call run, and it covers this call only.
 */
import type { Context } from 'cordis'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'

const OUTCOMES: ReadonlySet<string> = new Set(['allowed-once', 'denied', 'unavailable'])

/**
 * Ask the responders on `approval/request`. Never throws: a throwing responder or an answer that
 * is not one of the three outcomes counts as `denied`.
 */
export async function requestApproval(ctx: Context, request: ApprovalRequest): Promise<ApprovalOutcome> {
  try {
    const outcome = await ctx.waterfall('approval/request', request, () => 'unavailable' as const)
    return typeof outcome === 'string' && OUTCOMES.has(outcome) ? outcome : 'denied'
  } catch {
    return 'denied'
  }
}
