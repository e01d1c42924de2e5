/**
 * The request id a JSON-RPC message carries (a request's own) or names (a cancel's), read from a
 * message not yet checked against any schema: what `in-flight-ids.ts` claims and marks, and what
 * `refused-batches.ts` answers and filters; and the refusal both write for a request id in flight.
 */

/** A JSON-RPC request id (MCP: a string or a number, never null). */
export type RequestId = string | number

/** What to answer a request refused for its id: JSON-RPC's Invalid Request, with that id. */
export interface DuplicateIdRefusal {
  id: RequestId
  code: -32600
  message: string
}

/** The id of `message` when it is a request (a method and an id), else undefined. Never throws. */
export function requestId(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { id, method } = message as { id?: unknown; method?: unknown }
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined
}

/** The request id a `notifications/cancelled` names (`params.requestId`), else undefined. Never throws. */
export function cancelledId(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } }
  if (method !== 'notifications/cancelled' || 'id' in message) return undefined
  const id = params?.requestId
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}
