/**
 * The compact parameter form from the seed (SPEC S1.1): `{path: {type: 'string', required: true,
 * description}, limit: {type: 'number'}}`, optional by default, converted to one zod schema that
 * is both the validator and the source of the `args` type.
 */
import { z } from 'zod'
import { ToolDefinitionError } from '../errors/ptc-error.ts'
import type { CompactField, CompactParameters } from './types.ts'

type FieldType<F> = F extends { type: 'string'; enum: readonly (infer E)[] }
  ? E
  : F extends { type: 'string' }
    ? string
    : F extends { type: 'number' | 'integer' }
      ? number
      : F extends { type: 'boolean' }
        ? boolean
        : F extends { type: 'array'; items: infer I }
          ? FieldType<I>[]
          : F extends { type: 'array' }
            ? unknown[]
            : F extends { type: 'object' }
              ? Record<string, unknown>
              : never

type Simplify<T> = { [K in keyof T]: T[K] } & {}

/** The `args` type of a compact parameter form: `required: true` fields are required, the rest optional. */
export type InferCompact<P extends CompactParameters> = Simplify<
  { -readonly [K in keyof P as P[K] extends { required: true } ? K : never]: FieldType<P[K]> } & {
    -readonly [K in keyof P as P[K] extends { required: true } ? never : K]?: FieldType<P[K]>
  }
>

/**
 * Convert the compact form into a strict zod object (unknown keys are rejected, so a misspelt
 * optional field is an error the model can fix instead of being silently ignored).
 * @throws ToolDefinitionError for a field no call could use or whose constraint would be lost
 *   (SPEC S1.1, S2): not an object, an unknown `type`, an `enum` that is not a non-empty array of
 *   strings, a non-boolean `required`, a non-string `description`, or an unsupported key.
 */
export function compactToZod(parameters: CompactParameters, toolName: string): z.ZodObject {
  const shape: Record<string, z.ZodType> = {}
  for (const [key, field] of Object.entries(parameters)) {
    const schema = fieldToZod(field, `${toolName}.${key}`)
    shape[key] = field.required === true ? schema : schema.optional()
  }
  return z.strictObject(shape)
}

function fieldToZod(field: CompactField, where: string): z.ZodType {
  checkField(field, where)
  let schema: z.ZodType
  switch (field.type) {
    case 'string':
      schema = field.enum ? z.enum(field.enum as [string, ...string[]]) : z.string()
      break
    case 'number':
      schema = z.number()
      break
    case 'integer':
      schema = z.number().int()
      break
    case 'boolean':
      schema = z.boolean()
      break
    case 'array':
      schema = z.array(field.items ? fieldToZod(field.items, `${where}[]`) : z.unknown())
      break
    case 'object':
      schema = z.record(z.string(), z.unknown())
      break
    default:
      throw new ToolDefinitionError(
        `Parameter ${where} has unknown type ${JSON.stringify((field as { type?: unknown }).type)}; use string, number, integer, boolean, array or object.`,
        where,
      )
  }
  return field.description ? schema.describe(field.description) : schema
}

/** The keys each compact `type` takes; any other is refused rather than ignored. */
const KEYS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ['type', 'required', 'description', 'enum'],
  number: ['type', 'required', 'description'],
  integer: ['type', 'required', 'description'],
  boolean: ['type', 'required', 'description'],
  array: ['type', 'required', 'description', 'items'],
  object: ['type', 'required', 'description'],
}

/**
 * Refuse what the conversion would otherwise accept and then fail every call with (`enum: []`
 * gives an empty "expected one of") or drop silently (`minimum: 3`, `required: 'yes'` read as
 * optional). An unknown `type` is left to {@link fieldToZod}'s message.
 */
function checkField(field: unknown, where: string): void {
  const refuse = (what: string): never => {
    throw new ToolDefinitionError(`Parameter ${where} ${what}`, where)
  }
  if (typeof field !== 'object' || field === null || Array.isArray(field)) {
    refuse(`must be an object like { type: 'string' }, not ${JSON.stringify(field) ?? String(field)}.`)
  }
  if ('_zod' in (field as object)) {
    refuse("is a zod schema, but the compact form takes plain fields like { type: 'string', required: true }; to use zod, pass the whole parameters as one z.object({ ... }).")
  }
  const { type, required, description } = field as Record<string, unknown>
  const keys = typeof type === 'string' && Object.hasOwn(KEYS_BY_TYPE, type) ? KEYS_BY_TYPE[type] : undefined
  if (keys === undefined) return
  if (required !== undefined && typeof required !== 'boolean') refuse(`has required ${JSON.stringify(required)}: required must be true or false.`)
  if (description !== undefined && typeof description !== 'string') refuse('has a description that is not a string: description must be a string.')
  const { enum: values } = field as Record<string, unknown>
  if (type === 'string' && values !== undefined && !(Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === 'string'))) {
    refuse(`has enum ${JSON.stringify(values)}: enum must be a non-empty array of strings (the compact form's enums are strings; use a zod schema such as z.union([z.literal(1), z.literal(2)]) for others).`)
  }
  const extra = Object.keys(field as object).find((key) => !keys.includes(key))
  if (extra !== undefined) {
    refuse(`has key ${JSON.stringify(extra)}, which is not supported for type "${type}" (the compact form takes ${keys.join(', ')}); use a zod schema for constraints such as minimum, maxLength or pattern (e.g. z.number().min(3)).`)
  }
}
