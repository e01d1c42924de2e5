/**
 * Recursive schemas in the declarations (S9.1): each is a named alias TypeScript accepts (no
 * "circularly references itself", which would make it `any` and let every value through), its
 * references resolve to its own document's types, and a hostile web of definitions still gives
 * a file instead of holding typegen for minutes.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateDeclarations, type TypegenTool } from '../../typegen/index.ts'
import { check } from './check-script.ts'

type Json = string | number | boolean | null | Json[] | { [key: string]: Json }
const Json: z.ZodType<Json> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]))

const jsonTool = (name: string, schema: Record<string, unknown>): TypegenTool => ({ name, description: 'd', parameters: z.object({}), parametersJsonSchema: { type: 'object', properties: { v: { $ref: '#/$defs/V' } }, $defs: { V: schema } }, output: z.null() })

/** `count` definitions, each an object of `count` properties referring to every definition. */
function webTool(count: number): TypegenTool {
  const defs = Object.fromEntries(Array.from({ length: count }, (_, i) => [`D${i}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: count }, (_, j) => [`p${j}`, { $ref: `#/$defs/D${j}` }])) }]))
  return { name: 'web', description: 'd', parameters: z.object({}), parametersJsonSchema: { type: 'object', properties: { r: { $ref: '#/$defs/D0' } }, $defs: defs }, output: z.null() }
}

describe('recursive types in the declarations (S9.1)', { timeout: 120_000 }, () => {
  it('S9.1 the JSON-value z.lazy is an alias TypeScript accepts: a value of the right shape passes and a function is refused', async () => {
    const declarations = await generateDeclarations([{ name: 'store', description: 'Store a JSON value.', parameters: z.object({ key: z.string(), value: Json }), output: z.object({ ok: z.boolean() }) }])
    expect(declarations).toContain('type Value = string | number | boolean | null | Value[] | { [k: string]: Value }')
    expect(check(declarations, "await tools.store({ key: 'a', value: { x: [1, 'y', null, { z: true }] } })\nexport {}\n")).toEqual([])
    expect(check(declarations, "await tools.store({ key: 'a', value: () => 1 })\nexport {}\n")).toEqual([expect.stringMatching(/^\/virtual\/script\.ts:1 Type '\(\) => number' is not assignable to type 'Value'/)])
  })

  it('S9.1 a reference back as a bare union arm or intersection part adds nothing and is left out, so the alias stays valid', async () => {
    const declarations = await generateDeclarations([
      jsonTool('union_self', { anyOf: [{ type: 'string' }, { $ref: '#/$defs/V' }] }),
      jsonTool('all_of_self', { allOf: [{ $ref: '#/$defs/V' }, { type: 'object', properties: { x: { type: 'string' } } }] }),
      jsonTool('one_of_self', { oneOf: [{ type: 'number' }, { type: 'array', items: { $ref: '#/$defs/V' } }, { type: 'object', additionalProperties: { $ref: '#/$defs/V' } }] }),
    ])
    expect(check(declarations, 'export {}\n')).toEqual([])
    // Nothing refers back once those are gone: no alias at all.
    expect(declarations).toMatch(/union_self: \{ v\?: string \}/)
    expect(declarations).toMatch(/all_of_self: \{ v\?: \{ x\?: string \} \}/)
    expect(declarations).toMatch(/type V\d* = number \| V\d*\[\] \| \{ \[k: string\]: V\d* \}/)
  })

  it('S9.1 a documented reference back as a bare union arm goes with its doc, never printed as `/** doc */ never`; one to another recursive type is unknown as when undocumented', async () => {
    const declarations = await generateDeclarations([
      jsonTool('doc_self', { anyOf: [{ type: 'string' }, { $ref: '#/$defs/V', description: 'Again.' }] }),
      jsonTool('doc_self_in_alias', { anyOf: [{ type: 'string' }, { $ref: '#/$defs/V', description: 'Again.' }, { type: 'array', items: { $ref: '#/$defs/V' } }] }),
    ], { embedded: true })
    expect(declarations).not.toContain('never')
    expect(declarations).not.toContain('Again.')
    expect(declarations).toMatch(/doc_self\(args: \{ v\?: string \}\)/)
    expect(declarations).toContain('type V = string | V[]')
    // W's arm refers back to V, the type being expanded around it: that arm is `unknown`, so W is.
    const mutual = (description?: string): TypegenTool => ({
      name: description === undefined ? 'plain' : 'documented',
      description: 'd',
      parameters: z.object({}),
      parametersJsonSchema: {
        type: 'object',
        properties: { v: { $ref: '#/$defs/V' } },
        $defs: {
          V: { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#/$defs/W' } }] },
          W: { anyOf: [{ type: 'number' }, { $ref: '#/$defs/V', ...(description !== undefined && { description }) }, { type: 'array', items: { $ref: '#/$defs/W' } }] },
        },
      },
      output: z.null(),
    })
    const both = await generateDeclarations([mutual(), mutual('Other.')], { embedded: true })
    expect(both).not.toContain('Other.')
    expect(both).toMatch(/documented\(args: \{ v\?: string \| unknown\[\] \}\)/)
    expect(both).toMatch(/plain\(args: \{ v\?: string \| unknown\[\] \}\)/)
    expect(check(declarations, 'export {}\n')).toEqual([])
  })

  it('S9.1 two tools with the same recursive definition name but different referenced definitions get their own types', async () => {
    const tool = (name: string, leaf: string): TypegenTool => ({
      name,
      description: 'd',
      parameters: z.object({}),
      parametersJsonSchema: { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, required: ['root'], $defs: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } }, leaf: { $ref: '#/$defs/Leaf' } }, required: ['children', 'leaf'] }, Leaf: { type: leaf } } },
      output: z.null(),
    })
    const declarations = await generateDeclarations([tool('a_tool', 'string'), tool('b_tool', 'number')])
    expect(declarations).toContain('type Node = { children: Node[]; leaf: string }')
    expect(declarations).toContain('type Node2 = { children: Node2[]; leaf: number }')
  })

  it('S9.1 forty definitions that each refer to all forty still give a file that type-checks (it used to run for minutes)', async () => {
    const declarations = await generateDeclarations([webTool(40)], { embedded: true })
    expect(declarations).toMatch(/^ {2}web\(args: \{ r\?: D0 \}\): Promise<null>$/m)
    expect(check(declarations, 'export {}\n')).toEqual([])
  })

  it('S9.1 two hundred definitions that each refer to all two hundred are declared in seconds (34 s when every node was keyed by its whole text)', { timeout: 20_000 }, async () => {
    const declarations = await generateDeclarations([webTool(200)], { embedded: true })
    expect(declarations).toMatch(/^ {2}web\(args: \{ r\?: D0 \}\): Promise<null>$/m)
    expect(declarations).toMatch(/^type D0 = \{\n  p0\?: D0\n  p1\?: D1\n/m)
  })
})
