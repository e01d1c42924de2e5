/**
 * A batch refused for a request id (`in-flight-ids.ts`): the answer it gets, an error for each of
 * its requests, and what of it is delivered all the same, its notifications and answers. Only
 * Streamable HTTP delivers batches (`http-server.ts`); over stdio one message is one line.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js'
import { cancelledId, type DuplicateIdRefusal, type RequestId, requestId } from './message-ids.ts'

/** What a refused batch's errors say of the rest of it ({@link deliverAllButRequests}). */
export const DELIVERED = '(what else it held, notifications and answers, was delivered)'

/**
 * Delivers to `transport` (through its `onmessage`, set by the SDK's `Protocol` when it connected)
 * every message of `batch`, a batch refused for a request id, that is no request: notifications
 * and the client's answers to the server's requests, in order. None of them gets an answer, so a
 * client could not learn that one was dropped; and a cancel among them must reach the request it
 * names (S1.3), which went on holding a run slot otherwise. A cancel after a request of the batch
 * with its id is not delivered: it names that request, which is not run (see `InFlightIds.claim`).
 */
export function deliverAllButRequests(transport: Pick<Transport, 'onmessage'>, batch: readonly unknown[]): void {
  const ownCancels = cancelsOfOwnRequests(batch)
  for (const message of batch) {
    if (ownCancels.has(message)) continue
    if (isJSONRPCNotification(message) || isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) transport.onmessage?.(message)
  }
}

/**
 * The cancels of `batch` that come after a request of `batch` with the id they name: they mean that
 * request, which a refused batch does not run, and are neither delivered nor marked.
 */
export function cancelsOfOwnRequests(batch: readonly unknown[]): Set<unknown> {
  const requested = new Set<RequestId>()
  const own = new Set<unknown>()
  for (const message of batch) {
    const named = cancelledId(message)
    if (named !== undefined && requested.has(named)) own.add(message)
    const id = requestId(message)
    if (id !== undefined) requested.add(id)
  }
  return own
}

/**
 * The answer to a batch refused for `refused` (what `InFlightIds.claim` returned): a
 * JSON-RPC error for each request in it, in order (JSON-RPC 2.0 §6: a response for each request),
 * the refusal itself for the first request with its id, and for every other request one saying it
 * was not run because of that id. Notifications get none.
 */
export function refusedBatch(batch: readonly unknown[], refused: DuplicateIdRefusal): { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string } }[] {
  let named = false
  return batch.flatMap((message) => {
    const id = requestId(message)
    if (id === undefined) return []
    const own = !named && id === refused.id
    named ||= own
    const message_ = own ? refused.message : `Invalid Request: this batch was refused because request id ${JSON.stringify(refused.id)} in it cannot be used now (see the error for that id); none of its requests was run, this one neither ${DELIVERED}. Send it again, without that id.`
    return [{ jsonrpc: '2.0' as const, id, error: { code: refused.code, message: message_ } }]
  })
}
