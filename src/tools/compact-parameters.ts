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
 * @throws ToolDefinitionError for an unknown field `type`.
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
