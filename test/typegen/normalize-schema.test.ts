/**
 * The pre-pass that makes a JSON Schema ref-free and unnamed before it is typed (S9.1): its
 * bounds and edge cases, which the exact-output tests cannot all show.
 */
import { describe, expect, it } from 'vitest'
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, normalizeSchema } from '../../typegen/normalize-schema.ts'
import { firstSentence, renderDocComment } from '../../typegen/doc-comment.ts'

const full = { compact: false }

describe('normalizeSchema', () => {
  it('S9.1 inlines local refs, drops naming keywords and lifts the root description', () => {
    const result = normalizeSchema(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'urn:x',
        title: 'Root',
        description: 'The root.',
        type: 'object',
        properties: { a: { $ref: '#/$defs/A' }, b: { $ref: '#/$defs/A', description: 'Own words.' } },
        $defs: { A: { title: 'A', type: 'string', description: 'An A.', format: 'email', tsEnumNames: ['x'] } },
      },
      full,
    )
    expect(result).toEqual({
      description: 'The root.',
      schema: {
        type: 'object',
        properties: { a: { type: 'string', description: 'An A.' }, b: { type: 'string', description: 'Own words.' } },
      },
    })
  })

  it('S9.1 a self-referencing root ($ref "#") is marked recursive, and the ref back to it points at its id', () => {
    const result = normalizeSchema({ type: 'array', items: { $ref: '#' } }, full)
    expect(result.schema).toEqual({ $recursive: expect.stringMatching(/^#[0-9a-z]+$/), $name: '', type: 'array', items: { $self: result.schema.$recursive } })
  })

  it('S9.1 a $defs cycle is marked recursive where it is expanded, named after its definition; the same definition in another document with another schema gets another id', () => {
    const doc = (field: string) => ({ type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'object', properties: { [field]: { type: 'array', items: { $ref: '#/$defs/Node' } } } } } })
    const first = normalizeSchema(doc('kids'), full).schema as { properties: { root: Record<string, unknown> } }
    const root = first.properties.root
    expect(root).toEqual({ $recursive: root.$recursive, $name: 'Node', type: 'object', properties: { kids: { type: 'array', items: { $self: root.$recursive } } } })
    const other = normalizeSchema(doc('children'), full).schema as { properties: { root: Record<string, unknown> } }
    expect(other.properties.root.$recursive).not.toBe(root.$recursive)
  })

  it('S9.1 z.record with enum keys (propertyNames) becomes exactly those properties, each of the value type', () => {
    const schema = { type: 'object', propertyNames: { type: 'string', enum: ['a', 'b'] }, additionalProperties: { type: 'number' }, required: ['a', 'b'] }
    expect(normalizeSchema(schema, full).schema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, additionalProperties: false, required: ['a', 'b'] })
    // partialRecord: no `required`, so each key is optional; a pattern keeps the index signature
    expect(normalizeSchema({ type: 'object', propertyNames: { enum: ['x'] }, additionalProperties: { type: 'string' } }, full).schema).toEqual({ type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false })
    expect(normalizeSchema({ type: 'object', propertyNames: { enum: ['x'] }, patternProperties: { '^y': { type: 'string' } } }, full).schema).toEqual({ type: 'object', additionalProperties: { type: 'string' } })
  })

  it('S9.1 nesting past MAX_SCHEMA_DEPTH becomes unknown instead of recursing further', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 10; i++) deep = { type: 'array', items: deep }
    let node = normalizeSchema(deep, full).schema
    let levels = 0
    while (node.type === 'array') {
      node = node.items as Record<string, unknown>
      levels++
    }
    expect(levels).toBe(MAX_SCHEMA_DEPTH + 1)
    expect(node).toEqual({})
  })

  it('S9.1 a ref diamond that would expand exponentially is cut by the node budget', () => {
    // each level refers to the next twice: 2^40 nodes if expanded naively
    const defs: Record<string, unknown> = { L40: { type: 'string' } }
    for (let i = 0; i < 40; i++) {
      defs[`L${i}`] = { type: 'object', properties: { x: { $ref: `#/$defs/L${i + 1}` }, y: { $ref: `#/$defs/L${i + 1}` } } }
    }
    let count = 0
    const countNodes = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return
      count++
      for (const value of Object.values(node)) countNodes(value)
    }
    countNodes(normalizeSchema({ $ref: '#/$defs/L0', $defs: defs }, full).schema)
    expect(count).toBeLessThan(MAX_SCHEMA_NODES * 3)
  })

  it('S9.1 false schemas, boolean items and patternProperties map to what TypeScript can say', () => {
    expect(
      normalizeSchema(
        {
          type: 'object',
          properties: { never: false, any: true },
          patternProperties: { '^x-': { type: 'number' } },
        },
        full,
      ).schema,
    ).toEqual({ type: 'object', properties: { never: { anyOf: [] }, any: {} }, additionalProperties: { type: 'number' } })
  })

  it('S9.1 array bounds and a deprecated flag that is not a boolean are dropped (never printed)', () => {
    expect(normalizeSchema({ type: 'array', minItems: 5, maxItems: 2, deprecated: 'yes', items: { type: 'string', minItems: -1 } }, full).schema).toEqual({
      type: 'array',
      items: { type: 'string' },
    })
  })

  it('S9.1 a property named __proto__ stays a property', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')
    const properties = normalizeSchema(schema, full).schema.properties as Record<string, unknown>
    expect(Object.keys(properties)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype)
  })

  it('S9.1 compact form keeps first sentences', () => {
    expect(
      normalizeSchema({ type: 'array', minItems: 1, description: 'Ids. At least one.', items: { type: 'string', description: 'An id. Opaque.' } }, { compact: true }),
    ).toEqual({ description: 'Ids.', schema: { type: 'array', items: { type: 'string', description: 'An id.' } } })
  })
})

describe('doc comments', () => {
  it('S9.1 firstSentence cuts at the first sentence end of the first paragraph', () => {
    expect(firstSentence('Read a file. Then more.')).toBe('Read a file.')
    expect(firstSentence('Reads the\nwhole file! Really.')).toBe('Reads the whole file!')
    expect(firstSentence('Version v1.2 is used. Next.')).toBe('Version v1.2 is used.')
    expect(firstSentence('No period here\n\nSecond paragraph.')).toBe('No period here')
    expect(firstSentence('   ')).toBe('')
    expect(firstSentence('x'.repeat(500))).toHaveLength(200)
  })

  it('S9.1 renderDocComment escapes */ and uses the one-line form for one line', () => {
    expect(renderDocComment('a */ b', '  ')).toEqual(['  /** a *\\/ b */'])
    expect(renderDocComment('one\n\ntwo', '')).toEqual(['/**', ' * one', ' *', ' * two', ' */'])
    expect(renderDocComment('', '')).toEqual([])
  })
})
