/**
 * The ids of a client's requests still in flight on one MCP connection (JSON-RPC 2.0 §4: a
 * request's id is unique among the requests in flight). The MCP SDK (1.32) takes a second request
 * with the id of one it is still answering as if it were new: it replaces the first one's abort
 * controller and, over Streamable HTTP, the stream the first one's answer goes to, so the first
 * answer is lost. A transport that claims ids here before it delivers a request refuses such a
 * duplicate instead (`-32600`, naming the id), and the first request runs on undisturbed.
 *
 * An id is claimed when its request arrives and freed when the server sends its answer (a result
 * or an error), or when the client cancels it (`notifications/cancelled`: a cancelled request gets
 * no answer, so its id is the client's again).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** A JSON-RPC request id (MCP: a string or a number, never null). */
export type RequestId = string | number

/** What to answer a request refused for its id: JSON-RPC's Invalid Request, with that id. */
export interface DuplicateIdRefusal {
  id: RequestId
  code: -32600
  message: string
}

/** The client's request ids in flight on one connection; see the file comment. */
export class InFlightIds {
  readonly #ids = new Set<RequestId>()

  /**
   * Reads one arrival (a message, or a batch: an array of them) before it is delivered. Each
   * cancel in it frees the id it names. When a request's id is still in flight, or repeated within
   * the batch, returns the refusal for the first such request and claims nothing; otherwise claims
   * the id of every request in it and returns undefined. What is no message is passed over (it is
   * refused elsewhere). Never throws.
   */
  claim(arrival: unknown): DuplicateIdRefusal | undefined {
    const messages = Array.isArray(arrival) ? (arrival as unknown[]) : [arrival]
    for (const message of messages) {
      const cancelled = cancelledId(message)
      if (cancelled !== undefined) this.#ids.delete(cancelled)
    }
    const ids = messages.map(requestId).filter((id) => id !== undefined)
    const seen = new Set<RequestId>()
    for (const id of ids) {
      if (this.#ids.has(id) || seen.has(id)) return refusal(id, seen.has(id))
      seen.add(id)
    }
    for (const id of ids) this.#ids.add(id)
    return undefined
  }

  /** Frees the ids of the requests of `arrival`, which was claimed but never delivered (its transport refused it). */
  release(arrival: unknown): void {
    for (const message of Array.isArray(arrival) ? (arrival as unknown[]) : [arrival]) {
      const id = requestId(message)
      if (id !== undefined) this.#ids.delete(id)
    }
  }

  /** The server sends `message`: an answer (a result or an error) frees its request's id. */
  answered(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number')) this.#ids.delete(message.id)
  }

  /** Makes `transport.send` free the id of each answer it sends. */
  watchAnswers(transport: Pick<Transport, 'send'>): void {
    const send = transport.send.bind(transport)
    transport.send = (message, options) => {
      this.answered(message)
      return send(message, options)
    }
  }
}

/**
 * Makes a transport that delivers one message at a time (stdio) refuse a request whose id is in
 * flight: its `send` frees answered ids, and its `onmessage` (an accessor from now on, since the
 * SDK's `Protocol` sets it when it connects) claims each request's id before delivering it, or
 * sends the refusal instead. Call it before the transport is connected.
 * @returns the ids, for tests.
 */
export function refuseDuplicateIds(transport: Transport): InFlightIds {
  const ids = new InFlightIds()
  // The refusal goes through the send before the wrap: it answers the duplicate, not the first request.
  const send = transport.send.bind(transport)
  ids.watchAnswers(transport)
  let deliver: Transport['onmessage']
  const guarded: NonNullable<Transport['onmessage']> = (message, extra) => {
    const refused = ids.claim(message)
    if (refused === undefined) return deliver?.(message, extra)
    send({ jsonrpc: '2.0', id: refused.id, error: { code: refused.code, message: refused.message } }).catch(() => {})
  }
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (deliver === undefined ? undefined : guarded),
    set: (handler: Transport['onmessage']) => void (deliver = handler),
  })
  return ids
}

/** The id of `message` when it is a request (a method and an id), else undefined. */
function requestId(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { id, method } = message as { id?: unknown; method?: unknown }
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined
}

/** The request id a `notifications/cancelled` names, else undefined. */
function cancelledId(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } }
  if (method !== 'notifications/cancelled' || 'id' in message) return undefined
  const id = params?.requestId
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

function refusal(id: RequestId, repeatedInBatch: boolean): DuplicateIdRefusal {
  const shown = JSON.stringify(id)
  const message = repeatedInBatch
    ? `Invalid Request: request id ${shown} appears more than once in this batch; JSON-RPC request ids must be unique among the requests in flight. Give each request its own id.`
    : `Invalid Request: request id ${shown} is still in flight (a request with this id was received and has not been answered yet); JSON-RPC request ids must be unique among the requests in flight. Wait for its answer, or send this request with another id.`
  return { id, code: -32600, message }
}
