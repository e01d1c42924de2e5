/**
 * The bounds and formats of an argument as doc-comment notes (SPEC S9.1): `@minimum 1`,
 * `@maxLength 20`, `@format date-time`, `@minItems 1`… TypeScript cannot say them,
 * and a model that knows them makes fewer calls that fail validation. The tag names are the JSON
 * Schema validation keywords, as json-schema-to-typescript prints them. Only argument sides get
 * them (`normalize-schema.ts`, option `constraints`): on an output they are noise.
 */

/** Longest `pattern` shown; a longer one (zod's e-mail regex) says little to a reader. */
export const MAX_PATTERN_NOTE_CHARS = 80

const BOUNDS = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const

/**
 * The notes for the keywords `schema` states. Pure. `integer` alone gets none (the name usually
 * says it, and a note would put a one-line object on several), nor do zod's safe-integer bounds
 * of `.int()`.
 */
export function constraintNotes(schema: Record<string, unknown>): string[] {
  // `.nullable()` puts the bounds in the one arm that is not `null` (anyOf [{minimum: 3}, {type: null}]).
  const arms = [schema.anyOf, schema.oneOf].find(Array.isArray)?.filter((arm) => typeof arm === 'object' && arm !== null && (arm as { type?: unknown }).type !== 'null')
  const notes: string[] = arms?.length === 1 ? constraintNotes(arms[0] as Record<string, unknown>) : []
  // A tuple's length is its type already (`[string, number]`): no @minItems 2 @maxItems 2.
  const tuple = Array.isArray(schema.prefixItems) || Array.isArray(schema.items)
  for (const keyword of BOUNDS) {
    if (tuple && (keyword === 'minItems' || keyword === 'maxItems')) continue
    const value = schema[keyword]
    if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) !== Number.MAX_SAFE_INTEGER) notes.push(`@${keyword} ${value}`)
  }
  if (schema.uniqueItems === true) notes.push('@uniqueItems')
  if (typeof schema.format === 'string' && schema.format !== '') notes.push(`@format ${schema.format}`)
  else if (typeof schema.pattern === 'string' && schema.pattern !== '' && schema.pattern.length <= MAX_PATTERN_NOTE_CHARS) notes.push(`@pattern ${schema.pattern}`)
  return notes
}
