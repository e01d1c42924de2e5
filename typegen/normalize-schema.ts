/**
 * The pre-pass over a JSON Schema before `type-node.ts` reads it (S9.1). It produces a
 * self-contained, ref-free schema that keeps only the keywords that shape a TypeScript type or
 * its doc comment (`description`, `default`, `deprecated`):
 *
 * - local `$ref`s (`#`, `#/$defs/…`, `#/definitions/…`) are inlined; a ref back into one that is
 *   being expanded (a cycle, e.g. `z.lazy`) becomes `{ $self: id }`, and the expansion it points
 *   back to is marked `{ $recursive: id, $name, …}`: `type-node.ts` makes them a recursive type the
 *   renderer always declares as a named alias (`type Category = { children: Category[] }`). An
 *   unresolvable or non-local ref, or anything past the depth or node budget, becomes `{}`, which
 *   the generator types as `unknown`;
 * - naming keywords (`title`, `$id`, `$defs`…) and extensions (`tsType`) are dropped: every type
 *   is inlined (shared aliases are chosen later, from the content, never from zod's `$defs` ids);
 * - `anyOf`/`oneOf` arms that only list `required` keys are distributed over the object (one arm
 *   per choice, each the whole object with those keys required), so the type stays exact;
 * - 2020-12 `prefixItems` becomes draft-07 tuple `items`, `patternProperties` become the index
 *   signature, `false` schemas become `never`;
 * - descriptions are escaped for comments and, in compact form, cut to their first sentence.
 *
 * Validation is not its job: malformed keyword values pass through, and the caller falls back to
 * `unknown` when `schemaToNode` rejects them.
 */
import { constraintNotes } from './constraint-notes.ts'
import { documentHash, nameOfPointer } from './recursion-names.ts'
import { escapeCommentText, firstSentence } from './doc-comment.ts'

/** A JSON Schema object node, as far as this pass cares. */
export type JsonSchemaObject = Record<string, unknown>

/** Nesting depth past which a subschema is replaced by `{}` (`unknown`). */
export const MAX_SCHEMA_DEPTH = 32
/** Output nodes per schema past which further subschemas are replaced by `{}` (`unknown`). */
export const MAX_SCHEMA_NODES = 5000

/** Options of `normalizeSchema`. */
export interface NormalizeSchemaOptions {
  /** Cut every description to its first sentence. */
  compact: boolean
  /** Turn bounds and formats into `$notes` for doc comments (`constraint-notes.ts`): an argument side. */
  constraints?: boolean
}

/** Result of `normalizeSchema`: the ref-free schema and the root's own description, lifted out. */
export interface NormalizedSchema {
  schema: JsonSchemaObject
  /** The root `description` (escaped, compacted as asked), or `undefined`. Not left in `schema`. */
  description: string | undefined
}

/** Keywords copied verbatim (values, not subschemas). Everything not listed here or below is dropped. */
const VALUE_KEYWORDS = ['type', 'enum', 'const', 'required', 'nullable', 'deprecated', 'default'] as const

/** The explicit state of one walk: the document refs resolve against, where we are, what is open. */
interface WalkContext {
  readonly root: unknown
  readonly compact: boolean
  readonly constraints: boolean
  readonly depth: number
  /** JSON pointers of the `$ref` targets being expanded on the current path (cycle detection). */
  readonly expanding: readonly string[]
  /** Shared across the walk: nodes still allowed. */
  readonly budget: { nodes: number }
  /** Shared across the walk: the recursion ids of the targets referred back to, and which of those expanding now were. */
  readonly recursion: { ids: Map<string, string>; referenced: Set<string>; document?: string }
}

/** `{}`: typed as `unknown`. */
const UNKNOWN = (): JsonSchemaObject => ({})

/**
 * Normalizes `schema` as described in the module comment. Pure; never throws on any JSON input;
 * cost is bounded by `MAX_SCHEMA_NODES`.
 */
export function normalizeSchema(schema: unknown, options: NormalizeSchemaOptions): NormalizedSchema {
  const context: WalkContext = {
    root: schema,
    compact: options.compact,
    constraints: options.constraints === true,
    depth: 0,
    expanding: [''], // the root itself: `$ref: '#'` inside it is a cycle
    budget: { nodes: MAX_SCHEMA_NODES },
    recursion: { ids: new Map(), referenced: new Set() },
  }
  const normalized = recursive(walk(schema, context), '', context)
  const { description, ...rest } = normalized
  return { schema: rest, description: typeof description === 'string' ? description : undefined }
}

function walk(node: unknown, context: WalkContext): JsonSchemaObject {
  if (node === false) return { anyOf: [] } // matches nothing: `never`
  if (!isObject(node)) return UNKNOWN() // `true`, or garbage
  if (context.depth > MAX_SCHEMA_DEPTH || context.budget.nodes <= 0) return UNKNOWN()
  context.budget.nodes -= 1

  if (typeof node.$ref === 'string' || '$dynamicRef' in node || '$recursiveRef' in node) {
    return withOwnDescription(resolveRef(node, context), node, context)
  }

  const inner: WalkContext = { ...context, depth: context.depth + 1 }
  const out: JsonSchemaObject = {}
  if (typeof node.description === 'string') {
    const text = context.compact ? firstSentence(node.description) : node.description.trim()
    if (text !== '') out.description = escapeCommentText(text)
  }
  for (const keyword of VALUE_KEYWORDS) {
    if (keyword in node) out[keyword] = node[keyword]
  }
  if (context.constraints) {
    const notes = constraintNotes(node)
    if (notes.length > 0) out.$notes = notes
  }
  if ('deprecated' in out && typeof out.deprecated !== 'boolean') delete out.deprecated
  if (isObject(node.properties)) {
    out.properties = mapValues(node.properties, (value) => walk(value, inner))
  }
  const additional = additionalPropertiesOf(node)
  if (additional !== undefined) out.additionalProperties = typeof additional === 'boolean' ? additional : walk(additional, inner)
  const keys = propertyNamesEnum(node)
  if (keys !== undefined) {
    // `z.record(z.enum([...]), V)`: exactly those keys, each a V (required as `required` says).
    const value = isObject(out.additionalProperties) ? out.additionalProperties : UNKNOWN()
    const properties = isObject(out.properties) ? out.properties : {}
    for (const key of keys) {
      if (!Object.hasOwn(properties, key)) Object.defineProperty(properties, key, { value, enumerable: true, writable: true, configurable: true })
    }
    out.properties = properties
    out.additionalProperties = false
  }
  if (Array.isArray(node.prefixItems)) {
    out.items = node.prefixItems.map((item) => walk(item, inner))
    if (node.items !== undefined) out.additionalItems = typeof node.items === 'boolean' ? node.items : walk(node.items, inner)
  } else if (Array.isArray(node.items)) {
    out.items = node.items.map((item) => walk(item, inner))
    if (node.additionalItems !== undefined) {
      out.additionalItems = typeof node.additionalItems === 'boolean' ? node.additionalItems : walk(node.additionalItems, inner)
    }
  } else if (node.items !== undefined) {
    out.items = walk(node.items, inner)
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[keyword]
    if (Array.isArray(branches)) out[keyword] = branches.map((branch) => walk(branch, inner))
  }
  return distributeRequiredArms(out)
}

/**
 * `{properties, anyOf: [{required: [a]}, {required: [b]}]}` (one of these keys is required) →
 * `{anyOf: [{properties, required: [a]}, {properties, required: [b]}]}`: a union of the object with
 * each arm's keys required. Left as it is, each arm would be an open object and the type would
 * accept any key, so a misspelt one would pass the type-check. Same for `oneOf`.
 */
function distributeRequiredArms(node: JsonSchemaObject): JsonSchemaObject {
  const keywords = (['anyOf', 'oneOf', 'allOf'] as const).filter((keyword) => keyword in node)
  if (keywords.length !== 1 || keywords[0] === 'allOf') return node
  const keyword = keywords[0]!
  const arms = node[keyword] as JsonSchemaObject[]
  const isObjectNode = node.type === 'object' || (node.type === undefined && isObject(node.properties))
  if (!isObjectNode || arms.length === 0 || !arms.every(isRequiredOnly)) return node
  const { [keyword]: _arms, description, ...base } = node
  const baseRequired = Array.isArray(base.required) ? (base.required as unknown[]) : []
  return {
    ...(description !== undefined && { description }),
    anyOf: arms.map((arm) => ({
      ...base,
      required: [...new Set([...baseRequired, ...(arm.required as string[])])],
      ...(arm.description !== undefined && { description: arm.description }),
    })),
  }
}

/** An arm that only lists required keys (and perhaps says it is an object, or why). */
function isRequiredOnly(arm: JsonSchemaObject): boolean {
  const required = arm.required
  if (!Array.isArray(required) || required.length === 0 || !required.every((key) => typeof key === 'string')) return false
  return Object.keys(arm).every((key) => key === 'required' || key === 'description' || (key === 'type' && arm.type === 'object'))
}

/**
 * `additionalProperties`, with `patternProperties` folded in: TypeScript cannot express key
 * patterns, so their value schemas become the index signature.
 */
function additionalPropertiesOf(node: JsonSchemaObject): unknown {
  const patterns = isObject(node.patternProperties) ? Object.values(node.patternProperties) : []
  const explicit = node.additionalProperties
  if (patterns.length === 0 || explicit === false) return explicit
  const candidates = isObject(explicit) ? [...patterns, explicit] : patterns
  return candidates.length === 1 ? candidates[0] : { anyOf: candidates }
}

/** The keys `propertyNames` allows when it lists them (`enum` or `const` of strings) and no pattern adds others; else `undefined`. */
function propertyNamesEnum(node: JsonSchemaObject): string[] | undefined {
  const names = node.propertyNames
  if (!isObject(names) || node.patternProperties !== undefined || node.additionalProperties === false) return undefined
  const keys = Array.isArray(names.enum) ? names.enum : 'const' in names ? [names.const] : undefined
  return keys !== undefined && keys.length > 0 && keys.every((key) => typeof key === 'string') ? (keys as string[]) : undefined
}

/** Expands a `$ref` node, or `{}` when it is non-local, unresolvable, or already being expanded. */
function resolveRef(node: JsonSchemaObject, context: WalkContext): JsonSchemaObject {
  const ref = node.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#')) return UNKNOWN()
  const pointer = ref === '#' ? '' : ref.slice(1)
  if (pointer !== '' && !pointer.startsWith('/')) return UNKNOWN() // `#anchor`: not supported
  if (context.expanding.includes(pointer)) {
    // A cycle: a reference to the type being expanded, which is marked recursive when it is done.
    context.recursion.referenced.add(pointer)
    return { $self: recursionId(pointer, context) }
  }
  const target = resolvePointer(context.root, pointer)
  if (target === undefined) return UNKNOWN()
  return recursive(walk(target, { ...context, depth: context.depth + 1, expanding: [...context.expanding, pointer] }), pointer, context)
}

/** `node`, the expansion of `pointer`, marked `$recursive` (with a `$name` from the pointer) when a ref inside it pointed back to it. */
function recursive(node: JsonSchemaObject, pointer: string, context: WalkContext): JsonSchemaObject {
  if (!context.recursion.referenced.delete(pointer)) return node
  return { $recursive: recursionId(pointer, context), $name: nameOfPointer(pointer), ...node }
}

/**
 * The id of the type at `pointer`: the pointer and a hash of the whole document, so that equal
 * ids mean equal types across documents (two tools' `#/$defs/Node` differ when their documents do,
 * also in a definition that `Node` refers to, a review found).
 */
function recursionId(pointer: string, context: WalkContext): string {
  let id = context.recursion.ids.get(pointer)
  if (id === undefined) {
    context.recursion.document ??= documentHash(context.root)
    id = `${pointer}#${context.recursion.document}`
    context.recursion.ids.set(pointer, id)
  }
  return id
}

/** A description next to a `$ref` describes this use of the target; it wins over the target's own. */
function withOwnDescription(resolved: JsonSchemaObject, node: JsonSchemaObject, context: WalkContext): JsonSchemaObject {
  if (typeof node.description !== 'string') return resolved
  const text = context.compact ? firstSentence(node.description) : node.description.trim()
  return text === '' ? resolved : { ...resolved, description: escapeCommentText(text) }
}

/** RFC 6901 JSON pointer lookup (URI-fragment form, so percent-decoded first); `undefined` if absent. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root
  let current: unknown = root
  for (const raw of pointer.slice(1).split('/')) {
    let token: string
    try {
      token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    } catch {
      return undefined
    }
    if (Array.isArray(current) && /^\d+$/.test(token)) current = current[Number(token)]
    else if (isObject(current) && Object.hasOwn(current, token)) current = current[token]
    else return undefined
  }
  return current
}

function mapValues(record: JsonSchemaObject, map: (value: unknown) => unknown): JsonSchemaObject {
  const out: JsonSchemaObject = {}
  for (const [key, value] of Object.entries(record)) {
    // A property named `__proto__` must stay a property: assigned, it would set the prototype.
    // The others are assigned: defineProperty for each took a hostile web's normalizing 0.4 s.
    if (key === '__proto__') Object.defineProperty(out, key, { value: map(value), enumerable: true, writable: true, configurable: true })
    else out[key] = map(value)
  }
  return out
}

function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
