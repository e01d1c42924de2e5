/**
 * JSON Schemas as MCP clients read them most portably (issue 10 item 3, the MCP Inspector's
 * `--strict`): zod writes a nullable field as `type: ["number", "null"]`, which is legal JSON
 * Schema but which clients mapping tool schemas onto a single-`type` dialect (the OpenAPI subset
 * of Gemini function declarations, for one) may reject or drop. The same set of values is written
 * as `anyOf` branches of one `type` each, which the Inspector suggests.
 */

/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'required'])
/** Keywords whose values map names to schemas (a property may be called `default` or `type`). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/**
 * A copy of `schema` in which every `type` array becomes `anyOf` branches of one `type` each
 * (`{type: ["number", "null"], description}` → `{anyOf: [{type: "number"}, {type: "null"}],
 * description}`), at any depth. The other keywords stay where they were: the type-specific ones
 * (`minimum`, `items`…) apply only to values of their type, so the schema accepts exactly the same
 * values. A node that already has an `anyOf` keeps it, and both must hold (`allOf`). A one-element
 * array becomes that one type. Pure; `schema` is not changed.
 */
export function withSingleTypes<T>(schema: T): T {
  return rewriteSchema(schema) as T
}

function rewriteSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteSchema)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    out[key] = DATA_KEYWORDS.has(key) ? child : SCHEMA_MAPS.has(key) ? rewriteMap(child) : rewriteSchema(child)
  }
  const types = out.type
  if (!Array.isArray(types) || !types.every((type) => typeof type === 'string')) return out
  const { type: _type, anyOf, allOf, ...rest } = out
  if (types.length === 1) return { type: types[0], ...(anyOf !== undefined && { anyOf }), ...(allOf !== undefined && { allOf }), ...rest }
  const branches = types.map((type) => ({ type }))
  if (anyOf === undefined) return { anyOf: branches, ...(allOf !== undefined && { allOf }), ...rest }
  return { allOf: [{ anyOf }, { anyOf: branches }, ...(Array.isArray(allOf) ? allOf : [])], ...rest }
}

function rewriteMap(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, rewriteSchema(schema)]))
}
