/**
 * Approval through MCP elicitation (SPEC S5.1, S5.3, S8.1, S8.2): an `approval/request`
 * responder for one session. When the session's client declared the elicitation capability, an
 * `ask` decision for a call of that session's agent becomes an `elicitation/create` yes/no form;
 * only an explicit accept with `allow: true` answers `allowed-once` (this call only). Decline,
 * cancel, a timeout, a transport failure or the call being cancelled all deny. Calls of other
 * agents, and clients without elicitation, pass to the next responder (none: `unavailable`, deny).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { ApprovalResponder } from '../policy/approval.ts'

/** Default time a person has to answer an approval prompt, in ms. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000

/** What the responder needs from its session. */
export interface ElicitApprovalOptions {
  server: Server
  agent: string
  /** The MCP request a call belongs to (by the call id's root), so the prompt travels with it. */
  relatedRequest?: (callId: string) => RequestId | undefined
  timeoutMs?: number
}

/** True when the client can answer form elicitations (an empty `elicitation` object means form). */
export function supportsFormElicitation(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
}

/** Make the responder; install it with `ctx.approval.respond(...)` in the session's fiber. */
export function elicitApproval(options: ElicitApprovalOptions): ApprovalResponder {
  const { server, agent } = options
  return async (request, next) => {
    if (request.execution.agent !== agent || !supportsFormElicitation(server)) return next()
    const { execution } = request
    const related = options.relatedRequest?.(execution.callId)
    const args = JSON.stringify(execution.arguments)
    const message =
      request.displayReason ??
      `Allow the tool call "${execution.name}" once?${request.reason ? ` Reason: ${request.reason}.` : ''}\nArguments: ${args.length > 2_000 ? `${args.slice(0, 2_000)}…` : args}`
    try {
      const answer = await server.elicitInput(
        {
          message,
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow this call once', description: `Run "${execution.name}" this one time.` } },
            required: ['allow'],
          },
        },
        {
          signal: execution.callerSignal,
          timeout: options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
          ...(related !== undefined && { relatedRequestId: related }),
        },
      )
      return answer.action === 'accept' && answer.content?.allow === true ? 'allowed-once' : 'denied'
    } catch {
      return 'denied'
    }
  }
}
