/**
 * The ids of a client's requests still in flight on one MCP connection (JSON-RPC 2.0 §4: a
 * request's id is unique among the requests in flight). The MCP SDK (1.32) takes a second request
 * with the id of one it is still answering as if it were new: it replaces the first one's abort
 * controller and, over Streamable HTTP, the stream the first one's answer goes to, so the first
 * answer is lost. A transport that claims ids here before it delivers a request refuses such a
 * duplicate instead (`-32600`, naming the id), and the first request runs on undisturbed.
 *
 * An id is claimed when its request arrives and freed when the server sends its answer (a result
 * or an error). A request the client cancels (`notifications/cancelled`) gets no answer: its id is
 * freed once its handler has ended ({@link requestEndedUnanswered}), not when the cancel arrives.
 * Until then the SDK still holds the request by its id (its abort controller, handled a microtask
 * after the cancel arrives): a request reusing the id then took the cancelled one's place, got its
 * answer, and never got its own. Such a request is refused like any duplicate, saying its
 * cancelled request is still stopping. That mark, made as the cancel arrives, is also how the
 * session knows a request was cancelled before its handler ran ({@link cancelledInFlight}): it
 * belongs to that request's claim, so a cancel never reaches a later request reusing the id.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { cancelledId, type DuplicateIdRefusal, type RequestId, requestId } from './message-ids.ts'
import { cancelsOfOwnRequests, DELIVERED } from './refused-batches.ts'
import { closeRequestStream } from './sdk-internals.ts'

export type { DuplicateIdRefusal, RequestId } from './message-ids.ts'

/** The client's request ids in flight on one connection; see the file comment. */
export class InFlightIds {
  /**
   * Each id in flight, whether the client cancelled its request (it is still stopping), whether it
   * arrived as the only request of its arrival (over HTTP: the only request of its POST's stream),
   * and whether a cancel applies to it at all ({@link CANCELLABLE}).
   */
  readonly #ids = new Map<RequestId, InFlight>()
  /** The claims each arrival's cancels marked, so that {@link release} can undo them. */
  readonly #marks = new WeakMap<object, InFlight[]>()

  /**
   * Reads one arrival (a message, or a batch: an array of them) before it is delivered. When a
   * request's id is in flight, or repeated within the batch, claims nothing and returns the
   * refusal for the first such request; otherwise claims the id of every request in it and
   * returns undefined. Either way, a cancel in it marks the `tools/call` with its id in flight where
   * the cancel stands as cancelled (still claimed; {@link release} undoes it): one claimed before, or earlier in this batch
   * when it is not refused, never one after it (a cancel does not free its id for a request of
   * the same batch); a refused batch still delivers its cancels (`deliverAllButRequests`),
   * but for one after a request of its own with the id: that cancel was meant for that request,
   * which is not run, not for the earlier one the client most likely still waits on.
   * What is no message is passed over (it is refused elsewhere). Never throws.
   */
  claim(arrival: unknown): DuplicateIdRefusal | undefined {
    const messages = Array.isArray(arrival) ? (arrival as unknown[]) : [arrival]
    const seen = new Set<RequestId>()
    let clash: RequestId | undefined
    for (const id of messages.map(requestId)) {
      if (id === undefined) continue
      if (this.#ids.has(id) || seen.has(id)) {
        clash = id
        break
      }
      seen.add(id)
    }
    const marked: InFlight[] = []
    const ownCancels = clash === undefined ? new Set() : cancelsOfOwnRequests(messages)
    for (const message of messages) {
      if (ownCancels.has(message)) continue
      const id = requestId(message)
      if (id !== undefined && clash === undefined) this.#ids.set(id, { cancelled: false, alone: seen.size === 1, cancellable: CANCELLABLE.has((message as { method: string }).method) })
      const named = cancelledId(message)
      const claimed = named === undefined ? undefined : this.#ids.get(named)
      if (claimed === undefined || !claimed.cancellable || claimed.cancelled) continue
      claimed.cancelled = true
      claimed.reason = cancelReason(message)
      marked.push(claimed)
    }
    if (marked.length > 0) this.#marks.set(arrival as object, marked)
    if (clash === undefined) return undefined
    return refusal(clash, seen.has(clash) ? 'repeated' : this.#ids.get(clash)!.cancelled ? 'stopping' : 'running', Array.isArray(arrival))
  }

  /**
   * Undoes the claim of `arrival` (the same object {@link claim} read), which was never delivered
   * (its transport refused it): frees the ids of its requests, and unmarks the requests its cancels
   * marked, which were not cancelled after all.
   */
  release(arrival: unknown): void {
    if (typeof arrival === 'object' && arrival !== null) for (const claimed of this.#marks.get(arrival) ?? []) claimed.cancelled = false
    for (const message of Array.isArray(arrival) ? (arrival as unknown[]) : [arrival]) {
      const id = requestId(message)
      if (id !== undefined) this.#ids.delete(id)
    }
  }

  /** The server sends `message`: an answer (a result or an error) frees its request's id. */
  answered(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number')) this.#ids.delete(message.id)
  }

  /** The cancel of the request with `id` in flight, with its reason, when one came after it (see {@link claim}). */
  cancelled(id: RequestId): { reason: string | undefined } | undefined {
    const claimed = this.#ids.get(id)
    return claimed?.cancelled === true ? { reason: claimed.reason } : undefined
  }

  /**
   * The request with `id` ended and no answer will be sent for it (it was cancelled): frees its id.
   * @returns whether it was the only request of its arrival ({@link claim}).
   */
  endedUnanswered(id: RequestId): boolean {
    const alone = this.#ids.get(id)?.alone === true
    this.#ids.delete(id)
    return alone
  }

  /**
   * Makes `transport.send` free the id of each answer it sends, and makes these the ids
   * {@link requestEndedUnanswered} frees and {@link cancelledInFlight} reads on `transport`.
   */
  watchAnswers(transport: Pick<Transport, 'send'>): void {
    idsOfTransports.set(transport, this)
    const send = transport.send.bind(transport)
    transport.send = (message, options) => {
      this.answered(message)
      return send(message, options)
    }
  }
}

/** A request in flight ({@link InFlightIds}). */
interface InFlight {
  cancelled: boolean
  /** The cancel's `params.reason` (MCP: a string), when it gave one. */
  reason?: string | undefined
  alone: boolean
  cancellable: boolean
}

/**
 * The methods whose requests a cancel stops: `mcp-session.ts` stops a `tools/call` and ignores a
 * cancel of anything else (MCP "Cancellation" allows it), which is answered as usual; marking one
 * would tell a duplicate of its id that it is stopping, which it is not.
 */
const CANCELLABLE: ReadonlySet<string> = new Set(['tools/call'])

/** Each watched transport's ids ({@link InFlightIds.watchAnswers}). */
const idsOfTransports = new WeakMap<object, InFlightIds>()

/**
 * The cancel of the request with `id` in flight on `transport` (the one it came on), with its
 * reason, when a `notifications/cancelled` naming `id` arrived after this request did; else undefined. A cancel that arrived before
 * it (for an earlier request with the id, answered since, or for none) is not its cancel, and one
 * for a request answered since does not outlive it: the mark belongs to the claim, which the
 * answer frees. Undefined for a transport whose ids are not watched.
 */
export function cancelledInFlight(transport: object | undefined, id: RequestId): { reason: string | undefined } | undefined {
  return transport === undefined ? undefined : idsOfTransports.get(transport)?.cancelled(id)
}

/**
 * Tells `transport` (the one a request came on; none after it closed) that the request with `id`
 * ended and gets no answer: the SDK sends none for a request whose abort signal (its handler's
 * `extra.signal`) was aborted, as a cancel does. Its id is free from now on, and over Streamable
 * HTTP (a transport with `closeSSEStream`) the POST's event stream it came on is ended, without
 * an answer, when it was the only request of that POST (S9.4); with others on it, it stays open.
 * Call it when the handler has ended, not when the cancel arrives. Nothing happens for a
 * transport whose ids are not watched.
 */
export function requestEndedUnanswered(transport: object | undefined, id: RequestId): void {
  if (transport === undefined || idsOfTransports.get(transport)?.endedUnanswered(id) !== true) return
  closeRequestStream(transport, id)
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

/** The `params.reason` of a `notifications/cancelled`, when it is a string. */
function cancelReason(message: unknown): string | undefined {
  const reason = (message as { params?: { reason?: unknown } }).params?.reason
  return typeof reason === 'string' ? reason : undefined
}

/** Why a request's id cannot be claimed: in flight and running, in flight but cancelled (stopping), or repeated in its batch. */
type Clash = 'running' | 'stopping' | 'repeated'

function refusal(id: RequestId, clash: Clash, inBatch: boolean): DuplicateIdRefusal {
  const shown = JSON.stringify(id)
  const unique = 'JSON-RPC request ids must be unique among the requests in flight.'
  const reason = {
    repeated: `Invalid Request: request id ${shown} appears more than once in this batch; ${unique} Give each request its own id.`,
    running: `Invalid Request: request id ${shown} is still in flight (a request with this id was received and has not been answered yet); ${unique} Wait for its answer, or send this request with another id.`,
    stopping: `Invalid Request: request id ${shown} is still in flight: the request with this id was cancelled and is still stopping (a cancelled request gets no answer; its id is free once it has stopped). ${unique} Retry shortly, or send this request with another id.`,
  }[clash]
  return { id, code: -32600, message: inBatch ? `${reason} This whole batch was refused: none of its requests was run ${DELIVERED}.` : reason }
}
