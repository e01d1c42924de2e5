/**
 * `ctx.approval` (SPEC S5.1, S5.3, S8, S8.1, S8.2): one-shot permission decisions through the
 * `approval/request` waterfall. A responder is a listener that answers `allowed-once` or `denied`
 * for one request, or passes it on with `next()`; with no responder the waterfall closes as
 * `unavailable`, which the pipeline treats as a denial. There are no standing rules: every `ask`
 * asks again (allowed-once).
 */
import { type Context, Service } from 'cordis'
import { ApprovalNotObtainedError } from '../errors/ptc-error.ts'
import { requestApproval } from '../pipeline/request-approval.ts'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'

declare module 'cordis' {
  interface Context {
    approval: Approval
  }
}

/** A responder: answer one request, or defer to the next responder with `next()`. */
export type ApprovalResponder = (
  request: ApprovalRequest,
  next: () => ApprovalOutcome | Promise<ApprovalOutcome>,
) => ApprovalOutcome | Promise<ApprovalOutcome>

/** The approval service. */
export class Approval extends Service {
  constructor(ctx: Context) {
    super(ctx, 'approval')
  }

  /**
   * Add a responder, owned by the calling plugin's fiber (disposing the plugin removes it).
   * @returns the disposer.
   */
  respond(responder: ApprovalResponder): () => boolean {
    return this.ctx.on('approval/request', responder)
  }

  /** Ask for one approval; `unavailable` when nobody answers. Never throws. */
  request(request: ApprovalRequest): Promise<ApprovalOutcome> {
    return requestApproval(this.ctx, request)
  }
}

/**
 * A call stopped while its prompt waited: nobody answered, and the pipeline cancels the call (S6.3).
 * Every prompting responder (the terminal's, MCP elicitation's) ends its prompt with this one.
 */
export function stoppedUnanswered(): ApprovalNotObtainedError {
  return new ApprovalNotObtainedError('the call was stopped before anyone answered the approval prompt', 'The call was not made; make it again if it is still needed.')
}
