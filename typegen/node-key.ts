/**
 * Identity keys of type nodes (SPEC S9.1): two nodes get the same key exactly when their whole
 * content is the same, docs included (when `JSON.stringify` gives the same text). Union arms are
 * deduplicated, and `shared-aliases.ts` counts and names types, by these keys.
 *
 * A key is interned bottom-up: a short id for the node's own fields and its children's ids, made
 * once per node. Stringifying every node whole cost its subtree's size at each node, which a
 * hostile `$defs` web (200 definitions each referring to all 200) made 34 s of typegen.
 *
 * The table from content to id holds its ids weakly: an id lives as long as a node that has it,
 * so a long-running host's table does not grow with every tool set it has declared, and a node
 * made later with the same content as a live one still gets its id.
 */
import type { PropertyNode, TypeNode } from './type-node.ts'

/** An interned id; nodes with that content hold it, the table only weakly. */
interface Interned {
  readonly key: string
}

const table = new Map<string, WeakRef<Interned>>()
const forget = new FinalizationRegistry<string>((content) => {
  if (table.get(content)?.deref() === undefined) table.delete(content)
})
let nextId = 0
const nodeIds = new WeakMap<TypeNode, Interned>()

/** A stable identity of a node's whole content (docs included): equal keys print equally. */
export function nodeKey(node: TypeNode): string {
  let interned = nodeIds.get(node)
  if (interned === undefined) {
    interned = intern(contentOf(node, nodeKey))
    nodeIds.set(node, interned)
  }
  return interned.key
}

/** Identity of a property's doc comment and type (not its name or optionality). */
export function propertyKey(property: PropertyNode): string {
  // The type's key is base-36 digits, up to the first `:`: the doc after it needs no quoting.
  return `${nodeKey(property.type)}:${property.doc}`
}

/**
 * Keys of recursive bodies as if every `self` reference to their own id referred to one
 * placeholder: equal for two bodies that differ only in their own id (a schema's input and output
 * sides), as their JSON texts with that id's string replaced were. A `key` call looks at each
 * distinct content in the body once. The contents it changes get ids of this instance's own
 * (`#0`, `#1`…): keys from one instance compare, and a nested body's text is not copied into
 * every level above it.
 */
export class SelfPlaceholderKeys {
  readonly #ids = new Map<string, string>()

  /** The key of `body` with its `self` references to `id` replaced by the placeholder. */
  key(body: TypeNode, id: string): string {
    // By content, not by node: a hostile web's expansions repeat a few contents many times over
    // (200 definitions each referring to all 200: 470,000 nodes, 84 contents).
    const memo = new Map<string, string>()
    const visit = (inner: TypeNode): string => {
      const own = nodeKey(inner)
      let key = memo.get(own)
      if (key === undefined) {
        if (inner.kind === 'self' && inner.id === id) key = '#'
        else {
          let changed = false
          const content = contentOf(inner, (child) => {
            const childKey = visit(child)
            if (childKey !== nodeKey(child)) changed = true
            return childKey
          })
          // Interned keys are base-36 digits; these start with `#`: the two never meet.
          key = changed ? this.#idOf(content) : own
        }
        memo.set(own, key)
      }
      return key
    }
    return visit(body)
  }

  #idOf(content: string): string {
    let id = this.#ids.get(content)
    if (id === undefined) this.#ids.set(content, (id = `#${this.#ids.size}`))
    return id
  }
}

/** The id of `content`: the live one if a node holds it, else a new one. */
function intern(content: string): Interned {
  const found = table.get(content)?.deref()
  if (found !== undefined) return found
  const made: Interned = { key: (nextId++).toString(36) }
  table.set(content, new WeakRef(made))
  forget.register(made, content)
  return made
}

/**
 * The text of `node`'s own fields and its children's keys (`childKey`), one-to-one with its
 * content: a JSON array of every field `JSON.stringify` would print (whether a `rest` or `index`
 * is there), then each child's key after its length. (Length prefixes keep it one-to-one whatever
 * a key's characters.)
 */
function contentOf(node: TypeNode, childKey: (child: TypeNode) => string): string {
  const children = (nodes: readonly TypeNode[]): string => nodes.map((child) => {
    const key = childKey(child)
    return `${key.length}:${key}`
  }).join('')
  switch (node.kind) {
    case 'keyword':
    case 'literal':
      return JSON.stringify([node.kind, node.text])
    case 'array':
      return JSON.stringify([node.kind]) + children([node.items])
    case 'tuple':
      return JSON.stringify([node.kind, node.rest !== undefined]) + children(node.rest === undefined ? node.items : [node.rest, ...node.items])
    case 'union':
      return JSON.stringify([node.kind]) + children(node.arms)
    case 'intersection':
      return JSON.stringify([node.kind]) + children(node.parts)
    case 'documented':
      return JSON.stringify([node.kind, node.doc]) + children([node.type])
    case 'object': {
      const fields = node.properties.map((property) => [property.key, property.optional, property.doc])
      const types = node.properties.map((property) => property.type)
      return JSON.stringify([node.kind, node.noKeys, node.index !== undefined, fields]) + children(node.index === undefined ? types : [node.index, ...types])
    }
    case 'recursive':
      return JSON.stringify([node.kind, node.id, node.name]) + children([node.body])
    case 'self':
      return JSON.stringify([node.kind, node.id])
  }
}
