/**
 * Prints a `TypeNode` as TypeScript type text (SPEC S9.1). Objects without doc comments that fit
 * in `FLAT_MAX_CHARS` go on one line (`{ path: string; head?: number }`); others get one member a
 * line. Parentheses appear only where TypeScript needs them (`("a" | "b")[]`). Nodes and
 * properties that `shared-aliases.ts` chose to declare once print as their alias name.
 */
import { escapeCommentText, renderDocComment } from './doc-comment.ts'
import { nodeKey, propertyKey } from './node-key.ts'
import { type PropertyNode, someNode, type TypeNode } from './type-node.ts'

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
  /** A recursive type's `id` → its alias name, which its `self` nodes print (`unknown` when absent). */
  recursive: ReadonlyMap<string, string>
}

export const NO_ALIASES: AliasNames = { types: new Map(), properties: new Map(), bases: new Map(), recursive: new Map() }

/** How to print: the aliases in force, and where one-line property docs go. */
export interface RenderStyle {
  aliases: AliasNames
  /**
   * `key: T // doc` instead of a `/** doc *\/` line above the key: the same words in fewer tokens
   * (o200k), for declarations a model reads rather than an editor. Multi-line docs keep the block.
   */
  trailingDocs: boolean
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
      return flatObject(node, style, FLAT_MAX_CHARS) ?? blockObject(node, style, indent)
    }
    case 'recursive':
      // Its own declaration (elsewhere it printed as its alias above).
      return renderType(node.body, style, indent)
    case 'self':
      return aliases.recursive.get(node.id) ?? 'unknown'
  }
}

/** Array element text, in parentheses when it is a union or intersection not printed as an alias. */
function wrap(node: TypeNode, text: string, aliases: AliasNames): string {
  const key = nodeKey(node)
  const compound = (node.kind === 'union' || node.kind === 'intersection' || node.kind === 'documented' || aliases.bases.has(key)) && !aliases.types.has(key)
  return compound ? `(${text})` : text
}

/** `text` when it fits in `budget` characters on one line, else `undefined`. */
function within(text: string, budget: number): string | undefined {
  return text.length <= budget && !text.includes('\n') ? text : undefined
}

/**
 * `node`'s one-line text in at most `budget` characters, or `undefined` when it needs more, a
 * line break or a doc comment above a property. Objects inside are tried on one line only: the
 * line-per-member form would be thrown away by the caller, and trying it at every level of a
 * deeply nested schema made the time exponential in the depth (an imported MCP tool's schema
 * nested 30 deep: 45 s; 2,000 deep never ended). The budget stops the attempt at the first
 * level whose text is already too long.
 */
function flatType(node: TypeNode, style: RenderStyle, budget: number): string | undefined {
  const aliases = style.aliases
  const alias = aliases.types.get(nodeKey(node))
  if (alias !== undefined) return within(alias, budget)
  switch (node.kind) {
    case 'keyword':
    case 'literal':
      return within(node.text, budget)
    case 'array': {
      const item = flatType(node.items, style, budget - 2)
      return item === undefined ? undefined : within(`${wrap(node.items, item, aliases)}[]`, budget)
    }
    case 'tuple': {
      const items = joined(node.items, ', ', style, budget - 2)
      if (items === undefined || node.rest === undefined) return items === undefined ? undefined : within(`[${items}]`, budget)
      const rest = flatType(node.rest, style, budget - items.length - 8)
      return rest === undefined ? undefined : within(`[${items}${items === '' ? '' : ', '}...${wrap(node.rest, rest, aliases)}[]]`, budget)
    }
    case 'union':
      return joined(node.arms, ' | ', style, budget)
    case 'documented': {
      const type = flatType(node.type, style, budget)
      return type === undefined ? undefined : within(`/** ${escapeCommentText(node.doc)} */ ${type}`, budget)
    }
    case 'intersection': {
      const parts: string[] = []
      let used = 0
      for (const part of node.parts) {
        const text = flatType(part, style, budget - used)
        if (text === undefined) return undefined
        const shown = part.kind === 'union' && !aliases.types.has(nodeKey(part)) ? `(${text})` : text
        parts.push(shown)
        used += shown.length + 3
      }
      return within(parts.join(' & '), budget)
    }
    case 'object': {
      const based = aliases.bases.get(nodeKey(node))
      if (based === undefined) return flatObject(node, style, budget)
      const rest = flatType(based.rest, style, budget - based.name.length - 3)
      return rest === undefined ? undefined : within(`${based.name} & ${rest}`, budget)
    }
    case 'recursive':
      return flatType(node.body, style, budget)
    case 'self':
      return within(aliases.recursive.get(node.id) ?? 'unknown', budget)
  }
}

/** The one-line texts of `nodes` joined by `separator` within `budget`, or `undefined`. */
function joined(nodes: readonly TypeNode[], separator: string, style: RenderStyle, budget: number): string | undefined {
  const texts: string[] = []
  let used = 0
  for (const node of nodes) {
    const text = flatType(node, style, budget - used)
    if (text === undefined) return undefined
    texts.push(text)
    used += text.length + separator.length
  }
  return within(texts.join(separator), budget)
}

/** The one-line form within `budget` characters, or `undefined` (too long, or a property inside carries a doc comment). */
function flatObject(node: Extract<TypeNode, { kind: 'object' }>, style: RenderStyle, budget: number): string | undefined {
  const aliases = style.aliases
  if (node.noKeys) return within('Record<string, never>', budget)
  if (node.properties.length === 0) {
    if (!node.index) return within('{}', budget)
    const index = flatType(node.index, style, budget - 18)
    // `Record<…>` of a recursive alias is resolved at once ("circularly references itself"); an
    // index signature is deferred, as object types are.
    return index === undefined ? undefined : within(refersToAlias(node.index) ? `{ [k: string]: ${index} }` : `Record<string, ${index}>`, budget)
  }
  const members: string[] = []
  let used = 4
  for (const property of node.properties) {
    const alias = aliases.properties.get(propertyKey(property))
    if (alias === undefined && property.doc !== '') return undefined
    const name = memberName(property)
    const type = alias ?? flatType(property.type, style, budget - used - name.length - 2)
    if (type === undefined) return undefined
    members.push(`${name}: ${type}`)
    used += name.length + type.length + 4
    if (used > budget) return undefined
  }
  if (node.index) {
    const index = flatType(node.index, style, budget - used - 13)
    if (index === undefined) return undefined
    members.push(`[k: string]: ${index}`)
  }
  return within(`{ ${members.join('; ')} }`, budget)
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
 * `trailingDocs`, a one-line doc and a one-line member, `// doc` at the end of the line.
 */
export function withDoc(line: string, doc: string, indent: string, style: RenderStyle): string[] {
  if (doc === '') return [line]
  const text = escapeCommentText(doc.trim())
  // A member that spans lines keeps its doc above it: at the end of its first line (`items: {`)
  // the doc would read as the inner object's.
  if (style.trailingDocs && !text.includes('\n') && !line.includes('\n')) return [`${line} // ${text}`]
  return [...renderDocComment(doc, indent), line]
}

function memberName(property: PropertyNode): string {
  return `${propertyName(property.key)}${property.optional ? '?' : ''}`
}

/** `read_file` stays bare; `my-tool` becomes `"my-tool"`. */
export function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)
}

const refers = new WeakMap<TypeNode, boolean>()

/** Whether `node` holds a recursive type or a reference back to one (printed as an alias name that may lead back here). Memoized. */
function refersToAlias(node: TypeNode): boolean {
  let found = refers.get(node)
  if (found === undefined) {
    found = someNode(node, (inner) => inner.kind === 'self' || inner.kind === 'recursive')
    refers.set(node, found)
  }
  return found
}
