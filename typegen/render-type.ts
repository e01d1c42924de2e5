/**
 * Prints a `TypeNode` as TypeScript type text (SPEC S9.1). Objects without doc comments that fit
 * in `FLAT_MAX_CHARS` go on one line (`{ path: string; head?: number }`); others get one member a
 * line. Parentheses appear only where TypeScript needs them (`("a" | "b")[]`). Nodes and
 * properties that `shared-aliases.ts` chose to declare once print as their alias name.
 */
import { escapeCommentText, renderDocComment } from './doc-comment.ts'
import type { PropertyNode, TypeNode } from './type-node.ts'

/** Longest one-line object type, in characters; longer ones get one member a line. */
export const FLAT_MAX_CHARS = 100
/** Indent added per nesting level. */
export const INDENT = '  '

/** The shared aliases in force while printing (empty maps: everything inline). */
export interface AliasNames {
  /** `nodeKey(node)` → alias name of a type declared once. */
  types: ReadonlyMap<string, string>
  /** `propertyKey(property)` → alias name carrying that property's doc comment and type. */
  properties: ReadonlyMap<string, string>
  /** `nodeKey(object)` → the shared base it starts with and what it adds: `Base & { rest }`. */
  bases: ReadonlyMap<string, { name: string; base: TypeNode; rest: TypeNode }>
}

export const NO_ALIASES: AliasNames = { types: new Map(), properties: new Map(), bases: new Map() }

/** How to print: the aliases in force, and where one-line property docs go. */
export interface RenderStyle {
  aliases: AliasNames
  /**
   * `key: T // doc` instead of a `/** doc *\/` line above the key: the same words in fewer tokens
   * (o200k), for declarations a model reads rather than an editor. Multi-line docs keep the block.
   */
  trailingDocs: boolean
}

const keys = new WeakMap<TypeNode, string>()

/** A stable identity of a node's whole content (docs included): equal keys print equally. */
export function nodeKey(node: TypeNode): string {
  let key = keys.get(node)
  if (key === undefined) {
    key = JSON.stringify(node)
    keys.set(node, key)
  }
  return key
}

/** Identity of a property's doc comment and type (not its name or optionality). */
export function propertyKey(property: PropertyNode): string {
  return JSON.stringify([property.doc, nodeKey(property.type)])
}

/**
 * The text of `node`; continuation lines start with `indent`. `self` is not replaced by its own
 * alias (used when printing the alias declaration itself).
 */
export function renderType(node: TypeNode, style: RenderStyle, indent: string, self?: TypeNode): string {
  const aliases = style.aliases
  if (node !== self) {
    const alias = aliases.types.get(nodeKey(node))
    if (alias !== undefined) return alias
  }
  switch (node.kind) {
    case 'keyword':
    case 'literal':
      return node.text
    case 'array':
      return `${wrap(node.items, renderType(node.items, style, indent), aliases)}[]`
    case 'tuple': {
      const items = node.items.map((item) => renderType(item, style, indent))
      if (node.rest) items.push(`...${wrap(node.rest, renderType(node.rest, style, indent), aliases)}[]`)
      return `[${items.join(', ')}]`
    }
    case 'union':
      return node.arms.map((arm) => renderType(arm, style, indent)).join(' | ')
    case 'documented':
      return `/** ${escapeCommentText(node.doc)} */ ${renderType(node.type, style, indent)}`
    case 'intersection':
      return node.parts.map((part) => (part.kind === 'union' && !aliases.types.has(nodeKey(part)) ? `(${renderType(part, style, indent)})` : renderType(part, style, indent))).join(' & ')
    case 'object': {
      const based = aliases.bases.get(nodeKey(node))
      if (based !== undefined && node !== self) return `${based.name} & ${renderType(based.rest, style, indent)}`
      const flat = flatObject(node, style)
      return flat !== undefined && flat.length <= FLAT_MAX_CHARS ? flat : blockObject(node, style, indent)
    }
  }
}

/** Array element text, in parentheses when it is a union or intersection not printed as an alias. */
function wrap(node: TypeNode, text: string, aliases: AliasNames): string {
  const key = nodeKey(node)
  const compound = (node.kind === 'union' || node.kind === 'intersection' || node.kind === 'documented' || aliases.bases.has(key)) && !aliases.types.has(key)
  return compound ? `(${text})` : text
}

/** The one-line form, or `undefined` when some property inside carries a doc comment. */
function flatObject(node: Extract<TypeNode, { kind: 'object' }>, style: RenderStyle): string | undefined {
  const aliases = style.aliases
  if (node.noKeys) return 'Record<string, never>'
  if (node.properties.length === 0) return node.index ? `Record<string, ${renderType(node.index, style, '')}>` : '{}'
  const members: string[] = []
  for (const property of node.properties) {
    const alias = aliases.properties.get(propertyKey(property))
    if (alias === undefined && property.doc !== '') return undefined
    const type = alias ?? renderType(property.type, style, '')
    if (type.includes('\n')) return undefined
    members.push(`${memberName(property)}: ${type}`)
  }
  if (node.index) members.push(`[k: string]: ${renderType(node.index, style, '')}`)
  return `{ ${members.join('; ')} }`
}

function blockObject(node: Extract<TypeNode, { kind: 'object' }>, style: RenderStyle, indent: string): string {
  const inner = indent + INDENT
  const lines = ['{']
  for (const property of node.properties) {
    const alias = style.aliases.properties.get(propertyKey(property))
    const member = `${inner}${memberName(property)}: ${alias ?? renderType(property.type, style, inner)}`
    lines.push(...withDoc(member, alias === undefined ? property.doc : '', inner, style))
  }
  if (node.index) lines.push(`${inner}[k: string]: ${renderType(node.index, style, inner)}`)
  lines.push(`${indent}}`)
  return lines.join('\n')
}

/**
 * `line` (possibly several lines) with its doc comment: a `/** *\/` block above, or with
 * `trailingDocs` and a one-line doc, `// doc` at the end of its first line.
 */
export function withDoc(line: string, doc: string, indent: string, style: RenderStyle): string[] {
  if (doc === '') return [line]
  const text = escapeCommentText(doc.trim())
  if (style.trailingDocs && !text.includes('\n')) {
    const newline = line.indexOf('\n')
    return [newline === -1 ? `${line} // ${text}` : `${line.slice(0, newline)} // ${text}${line.slice(newline)}`]
  }
  return [...renderDocComment(doc, indent), line]
}

function memberName(property: PropertyNode): string {
  return `${propertyName(property.key)}${property.optional ? '?' : ''}`
}

/** `read_file` stays bare; `my-tool` becomes `"my-tool"`. */
export function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)
}
