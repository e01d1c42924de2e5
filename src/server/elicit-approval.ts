/**
 * Approval through MCP elicitation (SPEC S5.1, S5.3, S8.1, S8.2): an `approval/request`
 * responder for one session. When the session's client declared the elicitation capability, an
 * `ask` decision for a call of that session's agent becomes an `elicitation/create` yes/no form;
 * only an explicit accept with `allow: true` answers `allowed-once` (this call only). A decline
 * or `allow: false` by the person answers `denied` (refused); a cancel (the dialog dismissed
 * without a choice, per the MCP spec) and an accept without `allow` are no answer. When no
 * answer can be had (those two, or the client's elicitation fails, times out, or is not handled)
 * the call is denied all the same, but as an {@link ApprovalNotObtainedError} that says why and
 * what to do, not as a refusal. A call stopped while its prompt waits (the pipeline's stop, S6.3:
 * the caller's or the host's) withdraws the prompt and is no answer either, as at the terminal.
 * Calls of other agents pass to the next responder; so do calls of a client without elicitation,
 * and when no other responder answers, that is an `ApprovalNotObtainedError` too.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { describeThrown } from '../errors/describe-thrown.ts'
import { ApprovalNotObtainedError } from '../errors/ptc-error.ts'
import type { ApprovalResponder } from '../policy/approval.ts'
import { NEVER_ABORTED, stopSignalOf } from '../pipeline/execution.ts'
import { stoppedUnanswered } from '../policy/approval.ts'
import { sdkNextRequestId } from '../mcp/sdk-internals.ts'

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

/**
 * Make the responder; install it with `ctx.approval.respond(...)` in the session's fiber. The
 * responder throws {@link ApprovalNotObtainedError} when no answer can be had (see the file comment).
 */
export function elicitApproval(options: ElicitApprovalOptions): ApprovalResponder {
  const { server, agent } = options
  const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS
  return async (request, next) => {
    if (request.execution.agent !== agent) return next()
    if (!supportsFormElicitation(server)) {
      const outcome = await next()
      if (outcome !== 'unavailable') return outcome
      throw new ApprovalNotObtainedError('the MCP client did not declare the elicitation capability, so it could not be asked', 'Connect with an MCP client that supports elicitation to approve such calls.')
    }
    const { execution } = request
    const related = options.relatedRequest?.(execution.callId)
    const args = JSON.stringify(execution.arguments)
    const message =
      request.displayReason ??
      `Allow the tool call "${execution.name}" once?${request.reason ? ` Reason: ${request.reason}.` : ''}\nArguments: ${args.length > 2_000 ? `${args.slice(0, 2_000)}…` : args}`
    let answer: Awaited<ReturnType<Server['elicitInput']>>
    const stop = stopSignalOf(execution) ?? NEVER_ABORTED
    // Already stopped: nothing is asked (the SDK would refuse before numbering a request, and the
    // id read below would be one no prompt ever had).
    if (stop.aborted) throw stoppedUnanswered()
    const promptId = sdkNextRequestId(server)
    try {
      answer = await server.elicitInput(
        {
          message,
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow this call once', description: `Run "${execution.name}" this one time.` } },
            required: ['allow'],
          },
        },
        {
          signal: stop,
          timeout: timeoutMs,
          ...(related !== undefined && { relatedRequestId: related }),
        },
      )
    } catch (error) {
      // Timed out or withdrawn: the SDK forgot the prompt, so the client's answer may still come.
      const gaveUp = stop.aborted || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      if (gaveUp && promptId !== undefined) abandonedPrompts(server).add(promptId)
      // The call was stopped (its run ended, its request was cancelled, the host stopped): nobody
      // answered, as the terminal's prompt says; the pipeline cancels the call.
      if (stop.aborted) throw stoppedUnanswered()
      throw notObtained(error, timeoutMs)
    }
    // MCP: `decline` is the person's "no"; `cancel` is a dialog dismissed without a choice, so no answer.
    if (answer.action === 'decline') return 'denied'
    if (answer.action === 'cancel') {
      throw new ApprovalNotObtainedError('the approval dialog was dismissed without an answer', 'If the call is still needed, make it again and ask the user to answer the prompt (allow or decline) instead of closing it.')
    }
    if (answer.action !== 'accept') return 'denied'
    if (typeof answer.content?.allow === 'boolean') return answer.content.allow ? 'allowed-once' : 'denied'
    // Accepted, but without the form's answer: nobody said no, and nobody said yes.
    throw new ApprovalNotObtainedError('the MCP client accepted the approval prompt without its "allow" answer', 'Answer the prompt\'s "Allow this call once" field (yes or no), then make the call again.')
  }
}

/** Why an elicitation that was sent got no answer, and what to do. */
function notObtained(error: unknown, timeoutMs: number): ApprovalNotObtainedError {
  const code = error instanceof McpError ? error.code : undefined
  if (code === ErrorCode.RequestTimeout) {
    return new ApprovalNotObtainedError(`nobody answered the approval prompt (an MCP elicitation request) within ${timeoutMs} ms`, 'Answer the prompt when the MCP client shows it, then make the call again.')
  }
  const said = describeThrown(error).slice(0, 300)
  if (code === ErrorCode.MethodNotFound) {
    return new ApprovalNotObtainedError(`the MCP client does not handle elicitation requests, although it declared the capability (it answered: ${said})`, 'Use an MCP client that can show elicitation prompts to approve such calls.')
  }
  return new ApprovalNotObtainedError(`the MCP client's elicitation request failed (${said})`, "Make the call again; if it keeps failing, the MCP client's logs say why it cannot show the prompt.")
}

/** Per server, the ids of approval prompts it stopped waiting for, whose answers may still arrive. */
const abandoned = new WeakMap<Server, Set<number>>()

function abandonedPrompts(server: Server): Set<number> {
  let ids = abandoned.get(server)
  if (ids === undefined) abandoned.set(server, (ids = new Set()))
  // Bounded: a client that never answers late must not grow it without end.
  if (ids.size >= 1_000) ids.delete(ids.values().next().value!)
  return ids
}

/**
 * For an SDK `onerror` about a response with an unknown id that answers an approval prompt the
 * server stopped waiting for (timed out, or its call was stopped): a line that says so, not the
 * SDK's alarming text (an operator's trial); `undefined` for any other error.
 */
export function lateApprovalAnswer(server: Server, error: Error): string | undefined {
  const json = /^Received a response for an unknown message ID: ([\s\S]*)$/.exec(error.message)?.[1]
  if (json === undefined) return undefined
  let id: unknown
  try {
    id = (JSON.parse(json) as { id?: unknown }).id
  } catch {
    return undefined
  }
  const ids = abandoned.get(server)
  if (typeof id !== 'number' || ids?.delete(id) !== true) return undefined
  return `a late answer to approval prompt ${id} arrived after the server stopped waiting for it (the call was not made); ignored`
}
