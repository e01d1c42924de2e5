/**
 * Every read (and the one write) of the MCP TypeScript SDK's private fields, and the one SDK
 * behaviour the server works around, in one place. The SDK offers no public way to do these; each
 * was checked against `@modelcontextprotocol/sdk` {@link SDK_VERSION_CHECKED}, and
 * `test/unit/mcp/sdk-internals.test.ts` pins that version range and asserts each field still
 * exists on real SDK objects, so an SDK upgrade fails loudly there and nowhere else. Should a
 * field be missing, each function here returns `undefined` or `false` (never throws), and its
 * caller degrades as its docstring says.
 */
import type { ChildProcess } from 'node:child_process'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from './message-ids.ts'

/** The SDK version the functions of this file were checked against (its `package.json`'s `version`). */
export const SDK_VERSION_CHECKED = '1.32.2'

/**
 * The SDK's abort controllers of the requests `server` is handling, by id (`Protocol`'s private
 * `_requestHandlerAbortControllers`, checked with {@link SDK_VERSION_CHECKED}): aborting one makes
 * the SDK send no answer for that request. `undefined` when the SDK has no such map; the caller
 * (`mcp-session.ts`) then cannot silence a cancelled call, which is answered as usual.
 */
export function sdkRequestControllers(server: Server): Map<RequestId, AbortController> | undefined {
  const controllers = (server as unknown as { _requestHandlerAbortControllers?: unknown })._requestHandlerAbortControllers
  return controllers instanceof Map ? (controllers as Map<RequestId, AbortController>) : undefined
}

/**
 * The id `server`'s next request (e.g. `elicitInput`) will be sent with: `Protocol`'s private
 * `_requestMessageId` (checked with {@link SDK_VERSION_CHECKED}), which the SDK reads and
 * increments synchronously when it sends. `undefined` when it is not a number; the caller
 * (`elicit-approval.ts`) then does not recognise a late answer to a prompt it stopped waiting for,
 * and the SDK's own "unknown message ID" error is reported instead.
 */
export function sdkNextRequestId(server: Server): number | undefined {
  const next = (server as unknown as { _requestMessageId?: unknown })._requestMessageId
  return typeof next === 'number' ? next : undefined
}

/**
 * Puts `buffer` in place of an SDK stdio transport's (`StdioClientTransport`'s or
 * `StdioServerTransport`'s) read buffer: its private `_readBuffer` (checked with
 * {@link SDK_VERSION_CHECKED}). Call it before the transport starts.
 * @returns false, changing nothing, when the transport has no such field; the caller
 * (`line-buffer.ts`'s `useLineBuffer`) then keeps the SDK's slower reader.
 */
export function replaceSdkReadBuffer(transport: object, buffer: object): boolean {
  const fields = transport as { _readBuffer?: unknown }
  if (fields._readBuffer === undefined) return false
  fields._readBuffer = buffer
  return true
}

/**
 * The child process of an SDK `StdioClientTransport`: its private `_process` (checked with
 * {@link SDK_VERSION_CHECKED}), set when `start` spawns it, before its first await. `undefined`
 * before that, or when the SDK has no such field; the caller (`mcp-connection.ts`) then cannot
 * stop the server at the host's exit or signal a server that ignores the end of its stdin, and
 * relies on the SDK's own close.
 */
export function sdkStdioChild(transport: object): ChildProcess | undefined {
  const child = (transport as { _process?: unknown })._process
  return typeof child === 'object' && child !== null ? (child as ChildProcess) : undefined
}

/**
 * Ends the event stream of the POST that request `id` came on, without an answer, for an SDK
 * `StreamableHTTPServerTransport` (its public `closeSSEStream`); nothing for any other transport.
 * Needed because the SDK (checked with {@link SDK_VERSION_CHECKED}) ends a POST's stream only once
 * each request on it is answered, which a cancelled request never is, so its stream stayed open
 * (a keep-alive every 15 s) and kept its session from idling out. Harmless only because no
 * `eventStore` is configured: with one, a resumable client would reconnect to the stream
 * (Last-Event-ID) and wait there for an answer that never comes. When the method is missing the
 * stream stays open until the session closes.
 */
export function closeRequestStream(transport: object, id: RequestId): void {
  const closeStream = (transport as { closeSSEStream?: unknown }).closeSSEStream
  if (typeof closeStream === 'function') (closeStream as (id: RequestId) => void).call(transport, id)
}
