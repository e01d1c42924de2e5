/**
 * Identity keys of type nodes (S9.1, `typegen/node-key.ts`): interned bottom-up instead of each
 * node's whole JSON text, they must still say exactly what that text said, since aliases are
 * chosen and union arms deduplicated by them.
 */
import { describe, expect, it } from 'vitest'
import { nodeKey, propertyKey, SelfPlaceholderKeys } from '../../typegen/node-key.ts'
import type { PropertyNode, TypeNode } from '../../typegen/type-node.ts'

const string: TypeNode = { kind: 'keyword', text: 'string' }
const property = (key: string, type: TypeNode, options: { optional?: boolean; doc?: string } = {}): PropertyNode => ({ key, optional: options.optional ?? false, doc: options.doc ?? '', type })
const object = (properties: PropertyNode[], index?: TypeNode, noKeys = false): TypeNode => ({ kind: 'object', properties, index, noKeys })

/** Every node made afresh each call: equal ones share no object. */
const samples = (): TypeNode[] => [
  { kind: 'keyword', text: 'string' },
  { kind: 'keyword', text: 'number' },
  { kind: 'literal', text: '"string"' },
  { kind: 'array', items: { kind: 'keyword', text: 'string' } },
  { kind: 'array', items: { kind: 'array', items: { kind: 'keyword', text: 'string' } } },
  { kind: 'tuple', items: [string], rest: undefined },
  { kind: 'tuple', items: [string], rest: string },
  { kind: 'tuple', items: [string, string], rest: undefined },
  { kind: 'tuple', items: [], rest: string },
  { kind: 'union', arms: [string, { kind: 'literal', text: '1' }] },
  { kind: 'union', arms: [{ kind: 'literal', text: '1' }, string] },
  { kind: 'intersection', parts: [string, { kind: 'literal', text: '1' }] },
  { kind: 'documented', doc: 'A doc.', type: string },
  { kind: 'documented', doc: 'Another doc.', type: string },
  object([property('a', string)]),
  object([property('a', string, { optional: true })]),
  object([property('a', string, { doc: 'A doc.' })]),
  object([property('b', string)]),
  object([property('a', string), property('b', string)]),
  object([property('b', string), property('a', string)]),
  object([property('a:b', string)]),
  object([property('a', { kind: 'literal', text: '"x"' })]),
  object([], string),
  object([], undefined),
  object([], undefined, true),
  object([property('a', string)], string),
  { kind: 'recursive', id: '/$defs/A#1', name: 'A', body: object([property('next', { kind: 'self', id: '/$defs/A#1' })]) },
  { kind: 'recursive', id: '/$defs/A#2', name: 'A', body: object([property('next', { kind: 'self', id: '/$defs/A#2' })]) },
  { kind: 'recursive', id: '/$defs/A#1', name: 'B', body: object([property('next', { kind: 'self', id: '/$defs/A#1' })]) },
  { kind: 'self', id: '/$defs/A#1' },
  { kind: 'self', id: '/$defs/A#2' },
]

describe('node keys (S9.1)', () => {
  it('S9.1 two nodes have one key exactly when their JSON texts are equal, also when built apart', () => {
    const left = samples()
    const right = samples()
    for (const a of left) {
      for (const b of right) expect(nodeKey(a) === nodeKey(b), `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(JSON.stringify(a) === JSON.stringify(b))
    }
  })

  it("S9.1 a property's key is its doc and its type's, not its name or optionality", () => {
    expect(propertyKey(property('a', string, { doc: 'D.' }))).toBe(propertyKey(property('b', { kind: 'keyword', text: 'string' }, { doc: 'D.', optional: true })))
    expect(propertyKey(property('a', string, { doc: 'D.' }))).not.toBe(propertyKey(property('a', string, { doc: 'E.' })))
    expect(propertyKey(property('a', string, { doc: 'D.' }))).not.toBe(propertyKey(property('a', { kind: 'keyword', text: 'number' }, { doc: 'D.' })))
  })

  it('S9.1 recursive bodies that differ only in their own id have one placeholder key; another difference, or another id referred to, gives another', () => {
    const body = (own: string, other: string, leaf = 'string'): TypeNode =>
      object([property('next', { kind: 'self', id: own }), property('list', { kind: 'array', items: { kind: 'self', id: other } }), property('leaf', { kind: 'keyword', text: leaf as 'string' })])
    const keys = new SelfPlaceholderKeys()
    const input = keys.key(body('A#1', 'B#0'), 'A#1')
    expect(keys.key(body('A#2', 'B#0'), 'A#2')).toBe(input)
    expect(keys.key(body('A#2', 'B#0', 'number'), 'A#2')).not.toBe(input)
    expect(keys.key(body('A#2', 'B#9'), 'A#2')).not.toBe(input)
    // Not the key of any node: the placeholder stands for no real id.
    expect(input).not.toBe(nodeKey(body('A#1', 'B#0')))
    // A body that does not refer to the id keeps its own key.
    expect(keys.key(body('A#1', 'B#0'), 'C#1')).toBe(nodeKey(body('A#1', 'B#0')))
  })
})
