/**
 * Request params checked by this server, not by the MCP SDK: the SDK's `setRequestHandler`
 * parses a request with its schema before the handler runs, and a mismatch became JSON-RPC's
 * -32603 (internal error) carrying zod's issue list as JSON text. JSON-RPC 2.0 §5.1 says invalid
 * params are -32602, and a client deserves one readable line (MCP clients show the message).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { ErrorCode, type ServerNotification, type ServerRequest, type ServerResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { issuePath } from '../mcp/mcp-config.ts'

/** The issues of a failed parse, as the SDK's (zod 4) schemas report them. */
interface ParseFailure {
  issues: readonly { path: readonly PropertyKey[]; message: string }[]
}

/** A schema the SDK exports (`CallToolRequestSchema`, ...): what this file needs of it. */
interface RequestSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: ParseFailure }
}

/**
 * The schema to register a handler of `method` with: it holds the method alone, so the SDK
 * routes the request and leaves its params to {@link checkParams}.
 */
export function methodOnly<M extends string>(method: M) {
  return z.looseObject({ method: z.literal(method) })
}

/**
 * `request` parsed with `schema`, the one the SDK would have used.
 * @throws Error with `code` -32602 (InvalidParams), its message naming the method and each
 *   problem as `params.field: what`; a plain error (not an `McpError`), so the message goes on
 *   the wire as it is.
 */
export function checkParams<T>(schema: RequestSchema<T>, request: { method: string }): T {
  const parsed = schema.safeParse(request)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => `${issuePath(issue.path) || '(request)'}: ${issue.message}`)
  const message = `Invalid params for ${request.method}: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}.`
  throw Object.assign(new Error(message), { code: ErrorCode.InvalidParams })
}

/**
 * `server.setRequestHandler` as the SDK's `Protocol` does it, without the `Server` subclass's
 * wrapper for `tools/call` (SDK 1.32), which validates the request before `handler` runs (its
 * message: zod's issue list as JSON) and parses the handler's result once more. For a handler
 * that checks its own params ({@link checkParams}) and returns results of the right shape.
 */
export function onRequest<M extends string>(
  server: Server,
  schema: ReturnType<typeof methodOnly<M>>,
  handler: (request: { method: M }, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => Promise<ServerResult>,
): void {
  const register = Protocol.prototype.setRequestHandler as unknown as (this: Server, schema: unknown, handler: unknown) => void
  register.call(server, schema, handler)
}
