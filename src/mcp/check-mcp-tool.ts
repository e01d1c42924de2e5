/**
 * One listed MCP tool, checked on its own (SPEC S1, S9.1): a malformed tool is left out with the
 * reason, so one bad entry in a server's list never loses the others.
 */
import { ToolSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'

/** The tool when it is usable, else why not (one line, for the warning). */
export type CheckedMcpTool = { ok: true; tool: McpTool } | { ok: false; name: string; problem: string }

/**
 * Check a raw `tools/list` entry: the MCP shape (a `name`; `inputSchema` an object schema with
 * `"type": "object"`, so a root `anyOf` without it is refused; `outputSchema` likewise). Pure.
 */
export function checkMcpTool(raw: unknown): CheckedMcpTool {
  const name = typeof (raw as { name?: unknown })?.name === 'string' ? (raw as { name: string }).name : '(no name)'
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const schema = (raw as Record<string, unknown> | null)?.[field]
    if (schema === undefined && field === 'outputSchema') continue
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, name, problem: `${field} is not a JSON Schema object` }
    const type = (schema as Record<string, unknown>).type
    if (type !== 'object') {
      const root = ['anyOf', 'oneOf', 'allOf'].find((key) => key in schema)
      return { ok: false, name, problem: `${field} has ${type === undefined ? 'no "type"' : `"type": ${JSON.stringify(type)}`}${root ? ` (a root ${root})` : ''}; MCP requires "type": "object"` }
    }
  }
  const parsed = ToolSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return { ok: false, name, problem: `${issue.path.join('.') || 'the entry'}: ${issue.message}` }
  }
  return { ok: true, tool: parsed.data }
}
