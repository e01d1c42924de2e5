/**
 * What `ptc serve --http` answers a POST that carries no session id and cannot open one (MCP
 * Streamable HTTP: only an initialize request opens a session; JSON-RPC 2.0 error codes).
 */
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'

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
