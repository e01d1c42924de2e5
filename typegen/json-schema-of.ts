/**
 * The JSON Schema of a tool's arguments or canonical output (S9.1): the MCP-provided JSON Schema
 * when there is one, else `z.toJSONSchema` of the zod schema. Conversions are memoized per zod
 * schema object (zod schemas are immutable), so the `run_code` path pays for them once.
 */
import { z } from 'zod'
import type { TypegenTool } from './types.ts'

/** Which side of a tool: `args` uses the zod input type, `output` the output type. */
export type SchemaSide = 'args' | 'output'

const memo: Record<SchemaSide, WeakMap<z.ZodType, unknown>> = { args: new WeakMap(), output: new WeakMap() }

/**
 * `z.coerce.date()` takes an ISO date string as its argument (what defineTool's refusal of
 * `z.date()` arguments advises): typed `string` with its format, not `unknown` (a re-test).
 */
function coercedDateAsString(context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (context.zodSchema as { _zod?: { def?: { type?: unknown; coerce?: unknown } } })._zod?.def
  if (def?.type === 'date' && def.coerce === true) Object.assign(context.jsonSchema, { type: 'string', format: 'date-time' })
}

/**
 * The JSON Schema for one side of `tool`. Unrepresentable zod types (dates, bigints, transforms…)
 * become `{}` (→ `unknown`); if zod throws anyway, the whole side is `{}`. Never throws.
 * The returned object is shared: treat it as read-only.
 */
export function jsonSchemaOf(tool: TypegenTool, side: SchemaSide): unknown {
  const provided = side === 'args' ? tool.parametersJsonSchema : tool.outputJsonSchema
  if (provided !== undefined) return provided
  const schema = side === 'args' ? tool.parameters : tool.output
  if (typeof schema !== 'object' || schema === null) return {}
  const cache = memo[side]
  if (cache.has(schema)) return cache.get(schema)
  let converted: unknown
  try {
    converted = z.toJSONSchema(schema, { io: side === 'args' ? 'input' : 'output', unrepresentable: 'any', ...(side === 'args' && { override: coercedDateAsString }) })
  } catch {
    converted = {}
  }
  cache.set(schema, converted)
  return converted
}
