/**
 * One listed MCP tool, checked on its own (SPEC S1, S9.1): a malformed tool is left out with the
 * reason, so one bad entry in a server's list never loses the others.
 */
import { ToolSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'

/** The tool when it is usable, else why not (one line, for the warning). */
export type CheckedMcpTool = { ok: true; tool: McpTool } | { ok: false; name: string; problem: string }

/**
 * Most bytes of JSON an imported tool's `inputSchema` or `outputSchema` may take. Larger ones are
 * no tool a model can use (its declaration would fill the model's context), and ajv compiles them
 * in time quadratic in their size on the host's thread, at every start-up: an enum of 20,000
 * values took 1.2 s, one of 100,000 values 34 s (`ajv` 8.20, `.exp` measurement, round 18).
 */
export const MAX_SCHEMA_BYTES = 128 * 1024

/**
 * Check a raw `tools/list` entry: the MCP shape (a non-empty `name`; `inputSchema` an object
 * schema with `"type": "object"`, so a root `anyOf` without it is refused; `outputSchema`
 * likewise), each schema at most {@link MAX_SCHEMA_BYTES} of JSON. Pure.
 */
export function checkMcpTool(raw: unknown): CheckedMcpTool {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, name: '(no name)', problem: `the entry is ${JSON.stringify(raw) ?? String(raw)}, not a tool object` }
  const name = typeof (raw as { name?: unknown }).name === 'string' ? (raw as { name: string }).name : '(no name)'
  if (name.trim() === '') return { ok: false, name, problem: 'its name is empty; an MCP tool needs a name to be called by' }
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const schema = (raw as Record<string, unknown>)[field]
    if (schema === undefined && field === 'outputSchema') continue
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, name, problem: `${field} is not a JSON Schema object` }
    const bytes = Buffer.byteLength(JSON.stringify(schema))
    if (bytes > MAX_SCHEMA_BYTES) {
      return { ok: false, name, problem: `${field} is ${Math.ceil(bytes / 1024)} KiB of JSON, over the ${MAX_SCHEMA_BYTES / 1024} KiB an imported tool's schema may take (its declaration would fill a model's context)` }
    }
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
