/**
 * `defineTool` (SPEC S1.1–S1.3, S2, S11.5): an identity-like typed helper whose generics infer the
 * `args` of `execute` from `parameters` (a zod schema or the compact form) and the canonical value
 * from `output.schema`. It normalizes the definition once: compact parameters become a zod
 * schema, and the presenters are wrapped so malformed arguments fall back to `undefined` (the
 * generic card) instead of throwing during a live run or a replay.
 */
import { z } from 'zod'
import { ToolDefinitionError } from '../errors/ptc-error.ts'
import type { Card } from './cards.ts'
import { compactToZod, type InferCompact } from './compact-parameters.ts'
import { protoKeyPath } from './proto-keys.ts'
import type { CompactParameters, ToolDefinition, ToolOutput, ToolResult } from './types.ts'

/** The `args` type a `parameters` declaration produces. */
export type ArgsOf<P> = P extends z.ZodType ? z.output<P> : P extends CompactParameters ? InferCompact<P> : never

const toolBrand = Symbol.for('ptc-runner.tool')

/**
 * A normalized tool, as the registry holds it: `parameters` is always a zod schema, and
 * `presentCall`/`presentResult` are total (never throw, `undefined` on malformed input, S11.5).
 */
export interface Tool<Args = any, Value = any> extends Omit<ToolDefinition<Args, Value>, 'parameters' | 'presentCall' | 'presentResult'> {
  readonly parameters: z.ZodType<Args>
  /** Schemas that already are JSON Schema (tools imported from MCP servers), see {@link ToolJsonSchemas}. */
  readonly jsonSchemas?: ToolJsonSchemas
  /** The "calling" card, or `undefined` (generic fallback) when there is none or args are malformed. */
  presentCall(args: unknown): Card | undefined
  /** The "done" card, or `undefined` (generic fallback) when there is none or the input is malformed. */
  presentResult(args: unknown, result: ToolResult): Card | undefined
  readonly [toolBrand]: true
}

/**
 * JSON Schemas a tool already has (an MCP server's `inputSchema`/`outputSchema`). When present they
 * are what the model (S2.1 `schemas()`) and the generated declarations (S9.1) see, instead of a
 * conversion of the zod schemas, which then only validate (e.g. `z.any().superRefine(ajv check)`).
 */
export interface ToolJsonSchemas {
  parameters?: Record<string, unknown>
  output?: Record<string, unknown>
}

/** What `defineTool` accepts: a `ToolDefinition` whose types are inferred from its own fields. */
export type ToolSpec<P, S extends z.ZodType> = Omit<ToolDefinition<ArgsOf<P>, z.output<S>>, 'parameters' | 'output'> & {
  parameters: P
  jsonSchemas?: ToolJsonSchemas
  output: Omit<ToolOutput<ArgsOf<P>, z.output<S>>, 'schema'> & { schema: S }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/

/**
 * Define a tool. `execute`'s `args` are `z.output<parameters>` (or the compact form's inferred
 * type); its return type is the `output.schema` type, enforced at run time by the registry.
 *
 * @throws ToolDefinitionError when a required field is missing or has the wrong kind, the name
 *   is not `[A-Za-z_][A-Za-z0-9_.-]*` (at most 128 characters), or no call could succeed (a
 *   required Date parameter, a key named `__proto__`…).
 */
export function defineTool<const P extends z.ZodType | CompactParameters, S extends z.ZodType>(
  spec: ToolSpec<P, S>,
): Tool<ArgsOf<P>, z.output<S>> {
  const name = (spec as { name?: unknown }).name
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ToolDefinitionError(
      `Tool name ${JSON.stringify(name)} is invalid: use letters, digits, "_", "." or "-", starting with a letter or "_".`,
      String(name),
    )
  }
  const fail = (what: string): never => {
    throw new ToolDefinitionError(`Tool "${name}": ${what}`, name)
  }
  if (typeof spec.description !== 'string' || spec.description.trim() === '') fail('description must be a non-empty string (it is the model\'s only guide).')
  if (typeof spec.execute !== 'function') fail('execute must be a function.')
  if (!spec.output || !isZod(spec.output.schema)) fail('output.schema must be a zod schema of the canonical value.')
  if (typeof spec.output.render !== 'function') fail('output.render must be a function (args, value) => content blocks.')
  const rootType = zodType(spec.output.schema)
  if (rootType === 'void' || rootType === 'undefined') fail(`output.schema is z.${rootType}(), so every call would fail: the canonical value is plain JSON (S1.2), and undefined is not. For a tool that returns nothing, declare z.null() and return null.`)
  if (rootType === 'never') fail('output.schema is z.never(), which no value matches, so every call would fail.')
  const nonJson = requiredNonJson(spec.output.schema, '$', 'output')
  if (nonJson !== undefined) {
    fail(`output.schema requires a ${nonJson.type} at ${nonJson.path}, which no JSON value is, so every call would fail: the canonical value is plain JSON (S1.2). ${nonJsonAdvice(nonJson.type, 'output')}`)
  }
  const outputProtoKey = protoKeyPath(spec.output.schema)
  if (outputProtoKey !== undefined) fail(`output.schema declares a key named __proto__ at ${outputProtoKey}, which the canonical value cannot carry: validation drops it, so the script and the model would never see it; rename it (e.g. proto).`)
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) fail('timeoutMs must be a positive number of milliseconds.')
  if (spec.title !== undefined && (typeof spec.title !== 'string' || spec.title.trim() === '')) fail('title must be a non-empty string when given.')
  if (spec.annotations !== undefined && !isAnnotations(spec.annotations)) fail(`annotations must be an object whose fields (${ANNOTATION_HINTS.join(', ')}) are booleans.`)
  if (spec.jsonSchemas !== undefined && !isSchemaObjects(spec.jsonSchemas)) fail('jsonSchemas must be {parameters?, output?} with JSON Schema objects.')
  // A boolean would silently make the tool exclusive: only a function's strict `true` means parallel.
  if (spec.isConcurrencySafe !== undefined && typeof spec.isConcurrencySafe !== 'function') fail('isConcurrencySafe must be a function (args) => boolean, for example () => true.')
  if (looksLikeJsonSchema(spec.parameters)) {
    fail('parameters takes a zod object schema or the compact form {field: {type, required?, description?}}, not a JSON Schema ({type: "object", properties, required}); write each property as a compact field, or pass the JSON Schema as jsonSchemas.parameters beside a zod schema.')
  }
  // Before the compact form's conversion, which would assign the key and so lose it.
  const protoKey = protoKeyPath(spec.parameters)
  if (protoKey !== undefined) fail(`parameters declare a key named __proto__ at ${protoKey}, which no call can pass: arguments with an own __proto__ key are refused (S6.1), and an object schema drops it; rename it (e.g. proto).`)
  const parameters = isZod(spec.parameters)
    ? (spec.parameters as z.ZodType)
    : typeof spec.parameters === 'object' && spec.parameters !== null
      ? compactToZod(spec.parameters as CompactParameters, name)
      : fail('parameters must be a zod object schema or the compact form {field: {type, required?, description?}}.')
  // S1.1: the arguments are a JSON object (models and MCP clients send one, S2.1 advertises one).
  const notObject = nonObjectType(parameters, 0)
  if (notObject !== undefined) {
    fail(`parameters must describe an object (the arguments are a JSON object: models and MCP clients send one), but they take ${/^[aeiou]/.test(notObject) ? 'an' : 'a'} ${notObject}; put it in an object, e.g. z.object({ value: z.${notObject}(…) }).`)
  }
  const nonJsonArgument = requiredNonJson(parameters, '$', 'input')
  if (nonJsonArgument !== undefined) {
    fail(`parameters require a ${nonJsonArgument.type} at ${nonJsonArgument.path}, which no JSON argument is, so every call would fail: arguments arrive as plain JSON (S6.1). ${nonJsonAdvice(nonJsonArgument.type, 'input')}`)
  }

  const { presentCall, presentResult } = spec
  const tool = {
    ...spec,
    parameters,
    presentCall: (args: unknown): Card | undefined =>
      presentCall ? cardOrFallback(() => presentCall(parsedOrThrow(parameters, args) as never)) : undefined,
    presentResult: (args: unknown, result: ToolResult): Card | undefined =>
      presentResult ? cardOrFallback(() => presentResult(parsedOrThrow(parameters, args) as never, result)) : undefined,
    [toolBrand]: true as const,
  }
  return Object.freeze(tool) as unknown as Tool<ArgsOf<P>, z.output<S>>
}

/** True when `value` is a tool made by {@link defineTool}. */
export function isTool(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[toolBrand] === true
}

const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** zod types no JSON value can be, by their definition's `type`. */
const NON_JSON_TYPES: Readonly<Record<string, string>> = { date: 'Date', bigint: 'BigInt', map: 'Map', set: 'Set', symbol: 'Symbol', nan: 'NaN' }

/**
 * The first value `schema` requires that no JSON value can be (`z.date()`, a `z.bigint()` property
 * that is not optional…) and its path, else `undefined`. Follows only what every valid value must
 * hold: an object's required properties, a pipe's output, `readonly`; not union options, array
 * elements (an empty array is valid) or optional and nullable values.
 */
function requiredNonJson(schema: unknown, path: string, side: 'input' | 'output'): { type: string; path: string } | undefined {
  const def = zodDef(schema)
  if (def === undefined || typeof def.type !== 'string') return undefined
  const type = NON_JSON_TYPES[def.type]
  // `z.coerce.date()` takes a string as input: only its output is a Date.
  if (type !== undefined && !(side === 'input' && def.coerce === true)) return { type, path }
  if (def.type === 'object' && def.shape !== undefined) {
    for (const [key, field] of Object.entries(def.shape)) {
      const found = requiredNonJson(field, `${path}.${key}`, side)
      if (found !== undefined) return found
    }
  }
  // A pipe (a transform) takes its input's type and gives its output's.
  if (def.type === 'pipe') return requiredNonJson(side === 'input' ? def.in : def.out, path, side)
  if (def.type === 'readonly') return requiredNonJson(def.innerType, path, side)
  return undefined
}

/** What to use instead of a non-JSON type, for the refusals above: advice that fits the type refused. */
function nonJsonAdvice(type: string, side: 'input' | 'output'): string {
  switch (type) {
    case 'Date':
      return side === 'input' ? 'Use an ISO date string instead (z.coerce.date() turns one into a Date).' : 'Use an ISO date string instead.'
    case 'BigInt':
      return 'Use a string of digits or a number instead.'
    case 'Map':
      return 'Use a plain object (z.record) instead.'
    case 'Set':
      return 'Use an array instead.'
    case 'NaN':
      return 'Use a number or null instead.'
    default:
      return 'Use a string instead.'
  }
}

/** The parts of a zod 4 schema's definition these checks read. */
interface ZodDef {
  type?: unknown
  coerce?: unknown
  shape?: Record<string, unknown>
  in?: unknown
  out?: unknown
  innerType?: unknown
  options?: unknown[]
  left?: unknown
  right?: unknown
  getter?: () => unknown
}

function zodDef(schema: unknown): ZodDef | undefined {
  return (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def
}

/** The zod type name of `schema` (`object`, `string`, `void`…), `'unknown'` when it has none. */
function zodType(schema: unknown): string {
  const type = zodDef(schema)?.type
  return typeof type === 'string' ? type : 'unknown'
}

/** zod types whose values are never a JSON object. */
const NEVER_OBJECT: ReadonlySet<string> = new Set(['string', 'number', 'int', 'boolean', 'bigint', 'date', 'array', 'tuple', 'literal', 'enum', 'null', 'undefined', 'void', 'never', 'nan', 'symbol', 'set', 'map', 'file', 'template_literal'])

/**
 * The zod type (`string`, `array`…) that makes `schema` refuse every JSON object as input, else
 * `undefined`: only what provably fails every call a model or MCP client makes (they send an
 * object) is refused. Wrappers that hand an object to their inner type unchanged are looked
 * through (optional, nullable, default, lazy…), a pipe by its input, which every value must pass
 * first; a union needs no object option to be refused. Whatever may turn an object into something
 * else is accepted: `.catch()` (any failing input becomes the fallback), `z.preprocess` (its
 * function may map an object to what the schema after it takes: the pipe's input is a
 * transform), and what zod cannot tell (`z.custom`, `z.json`).
 */
function nonObjectType(schema: unknown, depth: number): string | undefined {
  const def = zodDef(schema)
  if (def === undefined || typeof def.type !== 'string' || depth > 32) return undefined
  if (NEVER_OBJECT.has(def.type)) return def.type
  switch (def.type) {
    case 'union': {
      const options = Array.isArray(def.options) ? def.options.map((option) => nonObjectType(option, depth + 1)) : []
      return options.length > 0 && options.every((type) => type !== undefined) ? options[0] : undefined
    }
    case 'intersection':
      return nonObjectType(def.left, depth + 1) ?? nonObjectType(def.right, depth + 1)
    case 'pipe':
      return nonObjectType(def.in, depth + 1)
    case 'lazy':
      return typeof def.getter === 'function' ? nonObjectType(def.getter(), depth + 1) : undefined
    case 'readonly':
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
      return nonObjectType(def.innerType, depth + 1)
    default:
      return undefined
  }
}

/** A JSON Schema object where the compact form was expected: `{type: 'object', properties}` or a bare `{properties}`. */
function looksLikeJsonSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || isZod(value)) return false
  const { type, properties } = value as { type?: unknown; properties?: unknown }
  const isCompactField = (field: unknown) => typeof field === 'object' && field !== null && typeof (field as { type?: unknown }).type === 'string'
  // A compact field named `type` or `properties` is itself an object with a string `type`.
  return type === 'object' || (typeof properties === 'object' && properties !== null && !isCompactField(properties))
}

function isAnnotations(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.entries(value).every(([key, hint]) => (ANNOTATION_HINTS as readonly string[]).includes(key) && typeof hint === 'boolean')
}

function isSchemaObjects(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const { parameters, output } = value as ToolJsonSchemas
  return [parameters, output].every((schema) => schema === undefined || (typeof schema === 'object' && schema !== null && !Array.isArray(schema)))
}

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as z.ZodType).safeParse === 'function'
}

function parsedOrThrow(schema: z.ZodType, args: unknown): unknown {
  const parsed = schema.safeParse(args)
  if (!parsed.success) throw parsed.error
  return parsed.data
}

/**
 * S11.5: run a presenter and return its card, or `undefined` (so the caller falls back to the
 * generic card) when it throws or returns something that is not a card. Never throws.
 */
export function cardOrFallback(present: () => Card | undefined): Card | undefined {
  try {
    const card = present()
    return typeof card === 'object' && card !== null && typeof card.card === 'string' ? card : undefined
  } catch {
    return undefined
  }
}
