/**
 * A normalized JSON Schema (see `normalize-schema.ts`) → a small tree of TypeScript type nodes
 * (SPEC S9.1). The tree is what `shared-aliases.ts` counts and `render-type.ts` prints; keeping it
 * separate from the text lets one tree be printed on one line or several, or behind an alias.
 *
 * Mapping: `type` → keywords (`integer` is `number`), `enum`/`const` → literal unions, `items` →
 * `T[]` or a tuple, `properties`/`required` → an object type (a key is optional unless required),
 * `additionalProperties` → an index signature (`false` with no properties: no keys at all,
 * `Record<string, never>`), `anyOf`/`oneOf` → a union, `allOf` → an intersection, `nullable` → `| null`.
 * Anything else is `unknown`.
 */
import { nodeKey } from './node-key.ts'
import type { JsonSchemaObject } from './normalize-schema.ts'

/** One TypeScript type. `doc`s live on properties only: that is where TypeScript shows them. */
export type TypeNode =
  | { kind: 'keyword'; text: 'string' | 'number' | 'boolean' | 'null' | 'unknown' | 'never' }
  /** A JSON literal (`"list"`, `3`, `true`), printed as its JSON text. */
  | { kind: 'literal'; text: string }
  | { kind: 'array'; items: TypeNode }
  | { kind: 'tuple'; items: TypeNode[]; rest: TypeNode | undefined }
  | { kind: 'union'; arms: TypeNode[] }
  | { kind: 'intersection'; parts: TypeNode[] }
  /** A union arm with its own description, printed `/** doc *\/ type` inside the union. */
  | { kind: 'documented'; doc: string; type: TypeNode }
  /** `noKeys`: no properties and `additionalProperties: false` (an exact empty object). */
  | { kind: 'object'; properties: PropertyNode[]; index: TypeNode | undefined; noKeys: boolean }
  /**
   * A type that refers to itself (`z.lazy`, a `$ref` cycle): always printed as a named alias,
   * `name` (from its `$defs` key; `''`: none) or one made from where it is used. `id` is the
   * normalized schema's `$recursive` id; `self` nodes inside `body` refer back to it.
   */
  | { kind: 'recursive'; id: string; name: string; body: TypeNode }
  /** A reference back to the enclosing `recursive` node with the same `id`: printed as its alias name. */
  | { kind: 'self'; id: string }

/** One property of an object type, with its finished doc comment text (may be `''`). */
export interface PropertyNode {
  key: string
  optional: boolean
  doc: string
  type: TypeNode
}

/** Thrown for a keyword value of the wrong shape (`enum: 'x'`); the caller falls back to `unknown`. */
export class SchemaShapeError extends Error {
  override readonly name = 'SchemaShapeError'
}

const UNKNOWN: TypeNode = { kind: 'keyword', text: 'unknown' }
const NEVER: TypeNode = { kind: 'keyword', text: 'never' }
const NULL: TypeNode = { kind: 'keyword', text: 'null' }

/**
 * The type of `schema`. Pure. @throws SchemaShapeError when a keyword's value has the wrong shape
 * (`type` not a string or array of strings, `enum`/`required`/`anyOf` not arrays, `properties`
 * not an object…).
 */
export function schemaToNode(schema: JsonSchemaObject): TypeNode {
  if (typeof schema.$self === 'string') return { kind: 'self', id: schema.$self }
  if (typeof schema.$recursive === 'string') {
    const { $recursive: id, $name: name, ...body } = schema
    const cleaned = withoutBareSelf(schemaToNode(body), id)
    // Left with no reference back (`string | V` is `string`): no alias needed.
    return refersTo(cleaned, id) ? { kind: 'recursive', id, name: typeof name === 'string' ? name : '', body: cleaned } : cleaned
  }
  const own = ownType(schema)
  const combined = combinators(schema)
  let node = own === undefined ? (combined ?? UNKNOWN) : combined === undefined ? own : intersection([own, combined])
  if (schema.nullable === true) node = union([node, NULL])
  return node
}

/** What the node itself says (`const`, `enum`, `type`, or the shape keywords without a `type`). */
function ownType(schema: JsonSchemaObject): TypeNode | undefined {
  if ('const' in schema) return literal(schema.const)
  if ('enum' in schema) {
    if (!Array.isArray(schema.enum)) throw new SchemaShapeError('enum must be an array')
    return union(schema.enum.map(literal))
  }
  const type = schema.type
  if (type === undefined) {
    if (schema.properties !== undefined || schema.additionalProperties !== undefined) return objectNode(schema)
    if (schema.items !== undefined) return arrayNode(schema)
    return undefined
  }
  const names = typeof type === 'string' ? [type] : type
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) throw new SchemaShapeError('type must be a string or an array of strings')
  return union(names.map((name) => typeByName(name as string, schema)))
}

function typeByName(name: string, schema: JsonSchemaObject): TypeNode {
  switch (name) {
    case 'string':
    case 'boolean':
    case 'null':
      return { kind: 'keyword', text: name }
    case 'number':
    case 'integer':
      return { kind: 'keyword', text: 'number' }
    case 'object':
      return objectNode(schema)
    case 'array':
      return arrayNode(schema)
    default:
      return UNKNOWN
  }
}

function objectNode(schema: JsonSchemaObject): TypeNode {
  const properties = schema.properties ?? {}
  if (!isObject(properties)) throw new SchemaShapeError('properties must be an object')
  const required = schema.required ?? []
  if (!Array.isArray(required) || required.some((key) => typeof key !== 'string')) throw new SchemaShapeError('required must be an array of strings')
  const nodes: PropertyNode[] = Object.entries(properties).map(([key, value]) => {
    const property = isObject(value) ? value : {}
    const optional = !required.includes(key)
    return { key, optional, doc: propertyDoc(property, optional), type: schemaToNode(property) }
  })
  // A required key the schema does not describe must still be present, with any value.
  for (const key of new Set(required as string[])) {
    if (!Object.hasOwn(properties, key)) nodes.push({ key, optional: false, doc: '', type: UNKNOWN })
  }
  const additional = schema.additionalProperties
  const closed = additional === false
  let index: TypeNode | undefined
  if (additional === true) index = UNKNOWN
  else if (isObject(additional)) {
    // TypeScript requires every property to fit the index signature; when they may not, widen it.
    const type = schemaToNode(additional)
    index = nodes.length === 0 || (type.kind === 'keyword' && type.text === 'unknown') ? type : UNKNOWN
  }
  return { kind: 'object', properties: nodes, index, noKeys: closed && nodes.length === 0 }
}

function arrayNode(schema: JsonSchemaObject): TypeNode {
  const items = schema.items
  if (Array.isArray(items)) {
    const additional = schema.additionalItems
    const rest = isObject(additional) ? schemaToNode(additional) : additional === true ? UNKNOWN : undefined
    return { kind: 'tuple', items: items.map((item) => (isObject(item) ? schemaToNode(item) : UNKNOWN)), rest }
  }
  return { kind: 'array', items: isObject(items) ? schemaToNode(items) : UNKNOWN }
}

/** `anyOf`/`oneOf` as a union, `allOf` as an intersection; `undefined` when none constrains. */
function combinators(schema: JsonSchemaObject): TypeNode | undefined {
  const parts: TypeNode[] = []
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const arms = schema[keyword]
    if (arms === undefined) continue
    if (!Array.isArray(arms)) throw new SchemaShapeError(`${keyword} must be an array`)
    const types = arms.map((arm) => (isObject(arm) ? documented(arm, schemaToNode(arm)) : UNKNOWN))
    // An unconstrained arm makes the whole union `unknown`: it adds nothing to the node's own type.
    if (!types.some(isUnknown)) parts.push(union(types))
  }
  const all = schema.allOf
  if (all !== undefined) {
    if (!Array.isArray(all)) throw new SchemaShapeError('allOf must be an array')
    parts.push(...all.map((part) => (isObject(part) ? schemaToNode(part) : UNKNOWN)))
  }
  return parts.length === 0 ? undefined : intersection(parts)
}

/**
 * A recursive body without the references to an alias that TypeScript cannot defer: a union arm
 * or intersection part that is a `self` outside any object or array (`type V = string | V` is an
 * error, and the alias becomes `any`). One to this very type adds nothing (`string | V` is
 * `string`) and goes, with its doc if the arm had one; one to another (mutual recursion) becomes
 * `unknown`, undocumented like any `unknown` arm.
 */
function withoutBareSelf(node: TypeNode, id: string): TypeNode {
  switch (node.kind) {
    case 'self':
      return node.id === id ? NEVER : UNKNOWN
    case 'union':
      return union(node.arms.map((arm) => withoutBareSelf(arm, id)))
    case 'intersection':
      return intersection(node.parts.map((part) => (part.kind === 'self' ? UNKNOWN : withoutBareSelf(part, id))))
    case 'documented': {
      // A doc on what went (`never`) or on `unknown` would print `/** doc */ never`: the arm goes
      // as it would without a doc, the doc with it.
      const type = withoutBareSelf(node.type, id)
      return type.kind === 'keyword' && (type.text === 'never' || type.text === 'unknown') ? type : { ...node, type }
    }
    default:
      return node
  }
}

/** Whether `node` holds a `self` reference to `id` anywhere. */
function refersTo(node: TypeNode, id: string): boolean {
  return someNode(node, (inner) => inner.kind === 'self' && inner.id === id)
}

/**
 * Whether `test` holds for `node` or any node inside it (a recursive type's body, array items,
 * tuple items and rest, union arms, intersection parts, a documented type, properties and index);
 * a node `test` accepts is not looked into.
 */
export function someNode(node: TypeNode, test: (node: TypeNode) => boolean): boolean {
  if (test(node)) return true
  const inside = (inner: TypeNode): boolean => someNode(inner, test)
  switch (node.kind) {
    case 'recursive':
      return inside(node.body)
    case 'array':
      return inside(node.items)
    case 'tuple':
      return node.items.some(inside) || (node.rest !== undefined && inside(node.rest))
    case 'union':
      return node.arms.some(inside)
    case 'intersection':
      return node.parts.some(inside)
    case 'documented':
      return inside(node.type)
    case 'object':
      return node.properties.some((property) => inside(property.type)) || (node.index !== undefined && inside(node.index))
    default:
      return false
  }
}

/** An arm keeps its description (`merged?: boolean | /** Commit reference… *\/ string`). */
function documented(arm: JsonSchemaObject, type: TypeNode): TypeNode {
  const doc = typeof arm.description === 'string' ? arm.description.replace(/\s+/g, ' ').trim() : ''
  return doc === '' || isUnknown(type) ? type : { kind: 'documented', doc, type }
}

/**
 * The doc comment text of a property: its description, its array items' description (`Items: …`),
 * `@deprecated`, the bounds an argument states (`$notes`, see `constraint-notes.ts`), and
 * `@default` (JSON) on an optional property, where the default is what the tool uses when the
 * key is left out.
 */
function propertyDoc(schema: JsonSchemaObject, optional: boolean): string {
  const parts: string[] = []
  if (typeof schema.description === 'string' && schema.description !== '') parts.push(schema.description)
  const items = schema.items
  if (isObject(items) && typeof items.description === 'string' && items.description !== '') parts.push(`Items: ${items.description}`)
  if (schema.deprecated === true) parts.push('@deprecated')
  if (Array.isArray(schema.$notes)) parts.push(...schema.$notes.filter((note): note is string => typeof note === 'string'))
  if (optional && 'default' in schema) {
    const text = jsonText(schema.default)
    if (text !== undefined) parts.push(`@default ${text}`)
  }
  return parts.join(parts.some((part) => part.includes('\n')) ? '\n' : ' ')
}

function literal(value: unknown): TypeNode {
  if (value === null) return NULL
  const text = jsonText(value)
  if (text === undefined) throw new SchemaShapeError('const and enum values must be JSON')
  return { kind: 'literal', text }
}

/** Flattens nested unions, drops repeated arms, and `never` arms; `never` when no arm is left. */
function union(arms: readonly TypeNode[]): TypeNode {
  const flat = arms.flatMap((arm) => (arm.kind === 'union' ? arm.arms : [arm])).filter((arm) => !(arm.kind === 'keyword' && arm.text === 'never'))
  if (flat.some(isUnknown)) return UNKNOWN
  const unique = dedupe(flat)
  return unique.length === 0 ? NEVER : unique.length === 1 ? unique[0]! : { kind: 'union', arms: unique }
}

function intersection(parts: readonly TypeNode[]): TypeNode {
  const unique = dedupe(parts.flatMap((part) => (part.kind === 'intersection' ? part.parts : [part])).filter((part) => !isUnknown(part)))
  return unique.length === 0 ? UNKNOWN : unique.length === 1 ? unique[0]! : { kind: 'intersection', parts: unique }
}

function dedupe(nodes: readonly TypeNode[]): TypeNode[] {
  if (nodes.length < 2) return [...nodes]
  const seen = new Set<string>()
  return nodes.filter((node) => {
    const key = nodeKey(node)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function isUnknown(node: TypeNode): boolean {
  return node.kind === 'keyword' && node.text === 'unknown'
}

/** `JSON.stringify`, or `undefined` for what it cannot or will not print. */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) ?? undefined
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
