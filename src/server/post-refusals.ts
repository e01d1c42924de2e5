/**
 * What `ptc serve --http` answers a POST it cannot serve: a body that is no JSON-RPC message, and
 * one that carries no session id and cannot open one (MCP Streamable HTTP: only an initialize
 * request opens a session; JSON-RPC 2.0 error codes).
 */
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { type LineRefusal, readParsed } from '../mcp/line-messages.ts'

/**
 * The JSON-RPC error for a parsed POST body (not a batch) that is no valid message, as stdio
 * answers the same line (`line-messages.ts`): -32600 with its id when it has a usable one; a bad
 * notification or answer, which JSON-RPC never answers, gets -32600 with a null id (HTTP must
 * answer something). `undefined` for a valid message.
 */
export function unreadableMessage(body: unknown): LineRefusal | undefined {
  const reading = readParsed(body, () => JSON.stringify(body))
  if ('message' in reading) return undefined
  return reading.refusal ?? { id: null, code: -32600, message: 'Invalid Request: not a valid JSON-RPC notification or response' }
}

/**
 * Why a POST without a session id cannot open one, as a JSON-RPC error; `undefined` for a valid
 * initialize request. An initialize sent as a notification (no id) opened a session whose id no
 * one could learn (202, no Mcp-Session-Id), holding a slot until it idled out (a hostile trial).
 */
export function initializeRefusal(body: unknown): { code: number; message: string; id?: string | number } | undefined {
  const message = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as { method?: unknown; id?: unknown }
  if (message.method !== 'initialize') return { code: -32000, message: 'Bad request: no session id, and the body is not an initialize request.' }
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return { code: -32600, message: 'Invalid Request: initialize is a request: it needs an id (a string or a number).' }
  if (!isInitializeRequest(body)) return { code: -32602, message: 'Invalid params for initialize: it needs params { protocolVersion, capabilities, clientInfo: { name, version } }.', id: message.id }
  return undefined
}
