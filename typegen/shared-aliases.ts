/**
 * Which parts of a declaration file to declare once (SPEC S9.1): repeated sub-objects (and unions,
 * tuples) become `type Name = …`, and a property whose doc comment and type repeat becomes
 * `/** doc *\/ type Name = T`, used as `key?: Name`. Every description stays whole; only copies go.
 *
 * Greedy and deterministic: the candidate that saves the most tokens (`estimateTokens`) is taken
 * first, then uses are counted again (a sub-object inside an aliased one now appears once, in the
 * alias), until nothing saves at least `MIN_SAVING_TOKENS`. Properties are decided after types, on
 * what is left. Names come from the key a type is first seen under (`Commit` for the items of
 * `commits`), else from the root's hint.
 */
import { AliasNamer } from './alias-names.ts'
import { baseCandidates, type ObjectUse } from './shared-bases.ts'
import { nodeKey, propertyKey, SelfPlaceholderKeys } from './node-key.ts'
import { renderType, type AliasNames, type RenderStyle } from './render-type.ts'
import type { PropertyNode, TypeNode } from './type-node.ts'

/**
 * Work the greedy passes may do (nodes counted, plus candidate texts rendered, a unit per 64
 * characters) before they stop choosing more aliases: each pass walks every node again, and a
 * hostile imported schema (40 definitions each referring to all 40) held a review's typegen for
 * minutes. Past it the file is still correct, only less shared.
 */
export const MAX_PLAN_WORK = 400_000

/** An alias below this saving (estimated tokens) is not worth the indirection. */
export const MIN_SAVING_TOKENS = 10
/** Tokens of `type  = ` and a line break: the fixed cost of one declaration. */
const DECLARATION_TOKENS = 3
/** Tokens of a doc comment beyond its words: `//` or `/** *\/`, indent, line break. */
const DOC_OVERHEAD_TOKENS = 3

/**
 * A rough count of the BPE tokens (o200k-like) of `text`: one per word part (`camelCase` is two),
 * number and punctuation mark; spaces ride on the next token. Only compares alias choices.
 */
export function estimateTokens(text: string): number {
  return text.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\s\w]/g)?.length ?? 0
}

/** A type to name: the node and where it first appears, for its alias name. */
export interface AliasRoot {
  node: TypeNode
  /** A name for the root itself, e.g. `ReadFileArgs`. */
  hint: string
}

/** One alias to print: `/** doc *\/ type name = node`. */
export interface AliasDeclaration {
  name: string
  doc: string
  node: TypeNode
}

/** The chosen aliases: names for printing, and the declarations, sorted by name. */
export interface AliasPlan {
  names: AliasNames
  declarations: AliasDeclaration[]
}

interface Seen<T> {
  item: T
  uses: number
  hint: string
  items: boolean
  /** The hint is a root's: a key seen later names it better. */
  fromRoot: boolean
}

/** Plans the shared aliases of the types under `roots`. Pure; deterministic for the same roots. */
export function planAliases(roots: readonly AliasRoot[]): AliasPlan {
  const namer = new AliasNamer()
  const types = new Map<string, string>()
  const properties = new Map<string, string>()
  const bases = new Map<string, { name: string; base: TypeNode; rest: TypeNode }>()
  const recursive = new Map<string, string>()
  const names: AliasNames = { types, properties, bases, recursive }
  const style: RenderStyle = { aliases: names, trailingDocs: false }
  const declarations: AliasDeclaration[] = []
  // A recursive type can only be written as a named alias: every one is declared, whatever it saves.
  // Two that differ only in their ids (one schema's input and output sides) share one declaration.
  const shapes = new Map<string, string>()
  const shapeKeys = new SelfPlaceholderKeys()
  for (const found of recursiveTypes(roots)) {
    if (types.has(nodeKey(found.node))) continue
    const shape = `${found.node.name}\n${shapeKeys.key(found.node.body, found.node.id)}`
    const same = shapes.get(shape)
    if (same !== undefined) {
      types.set(nodeKey(found.node), same)
      if (!recursive.has(found.node.id)) recursive.set(found.node.id, same)
      continue
    }
    // As the element of a tool's whole value (`Category[]`), named after the tool: `inv_categories` → `InvCategory`.
    const hint = found.items ? found.hint.replace(/_(Args|Result)$/, '') : found.hint
    const name = namer.name(found.node.name !== '' ? found.node.name : hint, { items: found.node.name === '' && found.items })
    if (!recursive.has(found.node.id)) recursive.set(found.node.id, name)
    types.set(nodeKey(found.node), name)
    shapes.set(shape, name)
    declarations.push({ name, doc: '', node: found.node })
  }

  let work = 0
  const rendered = (node: TypeNode): string => {
    const text = renderType(node, style, '')
    work += 1 + (text.length >> 6)
    return text
  }
  while (work < MAX_PLAN_WORK) {
    const { nodes } = countUses(roots, declarations, names)
    work += nodes.size
    let best: { seen: Seen<TypeNode>; saving: number } | undefined
    for (const seen of nodes.values()) {
      if (seen.uses < 2 || !isCandidate(seen.item)) continue
      const size = estimateTokens(rendered(seen.item))
      const name = estimateTokens(seen.hint)
      const saving = (seen.uses - 1) * size - seen.uses * name - DECLARATION_TOKENS - name
      if (saving >= MIN_SAVING_TOKENS && (best === undefined || saving > best.saving)) best = { seen, saving }
    }
    if (!best) break
    const name = namer.name(best.seen.hint, { items: best.seen.items })
    types.set(nodeKey(best.seen.item), name)
    declarations.push({ name, doc: '', node: best.seen.item })
  }

  // Shared leading properties, on the objects left (greedy likewise).
  while (work < MAX_PLAN_WORK) {
    const objects: ObjectUse[] = []
    const { nodes } = countUses(roots, declarations, names)
    work += nodes.size
    for (const seen of nodes.values()) {
      const key = nodeKey(seen.item)
      if (seen.item.kind === 'object' && !types.has(key) && !bases.has(key)) objects.push({ node: seen.item, uses: seen.uses, hint: seen.hint })
    }
    let best: { candidate: ReturnType<typeof baseCandidates>[number]; saving: number } | undefined
    for (const candidate of baseCandidates(objects)) {
      const uses = candidate.members.reduce((sum, member) => sum + member.uses, 0)
      const size = estimateTokens(rendered(candidate.base))
      const name = estimateTokens(candidate.hint)
      const saving = (uses - 1) * size - uses * (name + 1) - DECLARATION_TOKENS - name
      if (saving >= MIN_SAVING_TOKENS && (best === undefined || saving > best.saving)) best = { candidate, saving }
    }
    if (!best) break
    const { base, members, hint } = best.candidate
    const name = namer.name(hint)
    types.set(nodeKey(base), name)
    declarations.push({ name, doc: '', node: base })
    for (const { node } of members) {
      if (nodeKey(node) === nodeKey(base)) continue // the member that is exactly the base prints as its name
      const rest: TypeNode = { kind: 'object', properties: node.properties.slice(base.properties.length), index: node.index, noKeys: false }
      bases.set(nodeKey(node), { name, base, rest })
    }
  }

  const { nodes, props } = countUses(roots, declarations, names)
  for (const seen of props.values()) {
    const { item: property, uses } = seen
    if (uses < 2 || property.doc === '') continue
    const type = estimateTokens(renderType(property.type, style, ''))
    const doc = estimateTokens(property.doc) + DOC_OVERHEAD_TOKENS
    const name = estimateTokens(seen.hint)
    const saving = (uses - 1) * doc - uses * Math.max(0, name - type) - DECLARATION_TOKENS - name - type
    if (saving < MIN_SAVING_TOKENS) continue
    const typeAlias = types.get(nodeKey(property.type))
    const aliased = typeAlias === undefined ? undefined : declarations.find((declaration) => declaration.name === typeAlias)
    if (aliased && aliased.doc === '' && nodes.get(nodeKey(property.type))?.uses === uses) {
      // The type alias is only ever used by this property: give it the doc instead of a second alias.
      aliased.doc = property.doc
      properties.set(propertyKey(property), aliased.name)
      continue
    }
    const aliasName = namer.name(seen.hint)
    properties.set(propertyKey(property), aliasName)
    declarations.push({ name: aliasName, doc: property.doc, node: property.type })
  }
  declarations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { names, declarations }
}

type RecursiveNode = Extract<TypeNode, { kind: 'recursive' }>

/**
 * The recursive types under `roots`, outermost first in walk order, each with the hint of where
 * it is first seen (the property it types, `items` when as an array element, else the root's).
 */
function recursiveTypes(roots: readonly AliasRoot[]): { node: RecursiveNode; hint: string; items: boolean }[] {
  const found: { node: RecursiveNode; hint: string; items: boolean }[] = []
  const seen = new Set<string>()
  const visit = (node: TypeNode, hint: string, items: boolean): void => {
    switch (node.kind) {
      case 'recursive':
        if (seen.has(nodeKey(node))) return
        seen.add(nodeKey(node))
        found.push({ node, hint, items })
        return visit(node.body, hint, false)
      case 'array':
        return visit(node.items, hint, true)
      case 'tuple':
        for (const item of node.items) visit(item, hint, true)
        if (node.rest) visit(node.rest, hint, true)
        return
      case 'union':
        for (const arm of node.arms) visit(arm, hint, items)
        return
      case 'documented':
        return visit(node.type, hint, items)
      case 'intersection':
        for (const part of node.parts) visit(part, hint, items)
        return
      case 'object':
        for (const property of node.properties) visit(property.type, property.key, false)
        if (node.index) visit(node.index, hint, true)
        return
      default:
        return
    }
  }
  for (const root of roots) visit(root.node, root.hint, false)
  return found
}

function isCandidate(node: TypeNode): boolean {
  if (node.kind === 'object') return node.properties.length > 0 || node.index !== undefined
  return node.kind === 'union' || node.kind === 'intersection' || node.kind === 'tuple'
}

/**
 * Uses of every type node and every documented property, walking the roots and the alias bodies
 * and stopping at a node or property already aliased (it counts as a use there, not its insides).
 * Insertion order is the walk order, which makes ties deterministic.
 */
function countUses(roots: readonly AliasRoot[], declarations: readonly AliasDeclaration[], names: AliasNames) {
  const nodes = new Map<string, Seen<TypeNode>>()
  const props = new Map<string, Seen<PropertyNode>>()
  const visit = (node: TypeNode, hint: string, items: boolean, self: boolean, fromRoot = false): void => {
    const key = nodeKey(node)
    if (!self) {
      // an alias body is the declaration, not a use
      const seen = nodes.get(key)
      if (!seen) nodes.set(key, { item: node, uses: 1, hint, items, fromRoot })
      else {
        seen.uses++
        if (seen.fromRoot && !fromRoot) Object.assign(seen, { hint, items, fromRoot })
      }
      if (names.types.has(key)) return
    }
    const based = names.bases.get(key)
    if (based !== undefined) {
      visit(based.base, hint, false, false)
      return visit(based.rest, hint, false, false)
    }
    switch (node.kind) {
      case 'array':
        return visit(node.items, hint, true, false)
      case 'tuple':
        for (const item of node.items) visit(item, hint, true, false)
        if (node.rest) visit(node.rest, hint, true, false)
        return
      case 'union':
        for (const arm of node.arms) visit(arm, hint, items, false)
        return
      case 'documented':
        return visit(node.type, hint, items, false)
      case 'intersection':
        for (const part of node.parts) visit(part, hint, items, false)
        return
      case 'object':
        for (const property of node.properties) {
          const propKey = propertyKey(property)
          const prop = props.get(propKey)
          if (prop) prop.uses++
          else props.set(propKey, { item: property, uses: 1, hint: property.key, items: false, fromRoot: false })
          if (!names.properties.has(propKey)) visit(property.type, property.key, false, false)
        }
        if (node.index) visit(node.index, hint, true, false)
        return
      case 'recursive':
        // Reached only as its own declaration's body (elsewhere it is an alias, a use).
        return visit(node.body, hint, items, false)
      default:
        return
    }
  }
  for (const root of roots) visit(root.node, root.hint, false, false, true)
  for (const declaration of declarations) visit(declaration.node, declaration.name, false, true)
  return { nodes, props }
}
