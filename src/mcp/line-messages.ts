/**
 * What one stdio line holds, for `LineBuffer` (MCP's stdio transport: one JSON-RPC 2.0 message a
 * line): the message, or, for a line that is not a valid one, what its sender should hear. A
 * server answers a request it cannot read with JSON-RPC's error for it (so the client's call does
 * not wait forever); an answer to one of our requests that is not a valid response fails that
 * request at once.
 */
import { JSONRPCMessageSchema, JSONRPCRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** A JSON-RPC error to send back for a line (JSON-RPC 2.0 §5.1: `id` null when it cannot be read). */
export interface LineRefusal {
  id: string | number | null
  code: number
  message: string
}

/** What {@link readLine} makes of a line: a message to deliver, or an error to throw (and maybe a refusal to send). */
export type LineReading = { message: JSONRPCMessage } | { error: Error; refusal?: LineRefusal }

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INTERNAL_ERROR = -32603
const NEEDS = 'it needs "jsonrpc": "2.0", a string "method", a string or integer "id" for a request, and "params" an object when present'

/**
 * Reads `text` (one non-blank line). A line that is not JSON, JSON that is no object, a batch
 * (an array: MCP has none since 2025-06-18), an `id` that is neither a string nor a number (MCP:
 * never null), or a request with an id that is not a valid request gets a refusal; an answer that
 * is not a valid response becomes an error response for its id (delivered as the message); an
 * invalid notification (no id, a string method) or answer only an error, since neither is ever
 * answered; an object that is neither (`{}`, a numeric method) a refusal with a null id.
 */
export function readLine(text: string): LineReading {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { error: error as Error, refusal: { id: null, code: PARSE_ERROR, message: 'Parse error: the line is not JSON (one JSON-RPC message a line)' } }
  }
  return readParsed(parsed, text)
}

/**
 * {@link readLine} of a value already parsed from JSON (`text`, shown in an error answer's
 * message, is read only then): what `ptc serve --http` checks a POST body with, so both
 * transports answer a message they cannot read alike.
 */
export function readParsed(parsed: unknown, text: string | (() => string)): LineReading {
  if (Array.isArray(parsed)) {
    return { error: new Error('a JSON array (a JSON-RPC batch) is not an MCP message'), refusal: { id: null, code: INVALID_REQUEST, message: 'Invalid Request: MCP has no JSON-RPC batches; send one message a line' } }
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return { error: new Error(`${JSON.stringify(parsed)} is JSON, but not a JSON-RPC message (an object)`), refusal: { id: null, code: INVALID_REQUEST, message: `Invalid Request: a message is a JSON object; ${NEEDS}` } }
  }
  const object = parsed as Record<string, unknown>
  const id = object.id
  if (Object.hasOwn(object, 'id') && typeof id !== 'string' && typeof id !== 'number') {
    return { error: new Error(`a JSON-RPC id must be a string or a number, got ${JSON.stringify(id)}`), refusal: { id: null, code: INVALID_REQUEST, message: `Invalid Request: the id must be a string or an integer (MCP: never null); ${NEEDS}` } }
  }
  const checked = JSONRPCMessageSchema.safeParse(parsed)
  if (checked.success) return { message: checked.data }
  if (typeof id !== 'string' && typeof id !== 'number') {
    // A notification or an answer with bad fields is never answered (JSON-RPC 2.0 §4.1, §5);
    // anything else is no request at all, answered -32600 with a null id (§5.1).
    const notification = object.jsonrpc === '2.0' && typeof object.method === 'string'
    const answer = !('method' in object) && ('result' in object || 'error' in object)
    if (notification || answer) return { error: checked.error }
    return { error: checked.error, refusal: { id: null, code: INVALID_REQUEST, message: `Invalid Request: not a JSON-RPC 2.0 message (${NEEDS})` } }
  }
  if (!('method' in object) && ('result' in object || 'error' in object)) {
    const whole = typeof text === 'string' ? text : text()
    const shown = whole.length > 200 ? `${whole.slice(0, 200)}…` : whole
    return { message: { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `the answer is not a valid JSON-RPC response (a result must be an object; an error needs a code and a message): ${shown}` } } }
  }
  // A request whose one field is wrong (`_meta.progressToken: {}`): say which (an operator's trial got only the generic sentence).
  const field = typeof object.method === 'string' && object.jsonrpc === '2.0' ? wrongField(object) : undefined
  if (field !== undefined) return { error: new Error(`answered a request that is not valid: ${field}`), refusal: { id, code: INVALID_REQUEST, message: `Invalid Request: ${field}` } }
  return { error: checked.error, refusal: { id, code: INVALID_REQUEST, message: `Invalid Request: not a JSON-RPC 2.0 request (${NEEDS})` } }
}

/** The first field a request gets wrong, as `params._meta.progressToken must be a string or a number`; `undefined` when none is found. */
function wrongField(request: Record<string, unknown>): string | undefined {
  const checked = JSONRPCRequestSchema.safeParse(request)
  const issue = checked.success ? undefined : checked.error.issues[0]
  if (issue === undefined || issue.path.length === 0) return undefined
  const path = issue.path.map(String).join('.')
  if (issue.code === 'invalid_union') {
    const expected = issue.errors.flat().flatMap((inner: { code: string; expected?: unknown }) => (inner.code === 'invalid_type' && typeof inner.expected === 'string' ? [inner.expected] : []))
    if (expected.length > 0) return `${path} must be a ${[...new Set(expected)].join(' or a ')}`
  }
  return `${path}: ${issue.message}`
}
