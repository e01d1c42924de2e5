/**
 * Deeply nested schemas render in time linear in their depth (S9.1). An imported MCP tool's input
 * schema nested 30 deep took 45 s to declare (`ptc check`, `ptc serve` start-up: every object
 * level rendered its subtree once on one line and again a member a line, 2^depth), and 2,000
 * deep never ended. Now each object is tried on one line within the 100-character budget only
 * where its parent is, so the same schemas take milliseconds; with the old renderer these tests
 * run into vitest's timeout.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateDeclarations, type TypegenTool } from '../../typegen/index.ts'
import { MAX_SCHEMA_DEPTH } from '../../typegen/normalize-schema.ts'

/** `{ a?: { a?: … string } }`, `depth` objects deep. */
function nested(depth: number, leaf: Record<string, unknown> = { type: 'string' }): Record<string, unknown> {
  let schema = leaf
  for (let level = 0; level < depth; level++) schema = { type: 'object', properties: { a: schema } }
  return schema
}

const tool = (name: string, inputSchema: Record<string, unknown>): TypegenTool => ({
  name,
  description: `The ${name} tool.`,
  parameters: z.object({}),
  output: z.unknown(),
  parametersJsonSchema: inputSchema,
  outputJsonSchema: { type: 'string' },
})

describe('deeply nested schemas (S9.1)', { timeout: 30_000 }, () => {
  it('S9.1 a schema 2,000 objects deep is declared down to the depth cap, the outer levels a member a line and the innermost on one line', async () => {
    const text = await generateDeclarations([tool('deep', nested(2_000))], { embedded: true })
    const lines = text.split('\n')
    // Cut at MAX_SCHEMA_DEPTH: the rest is unknown.
    expect(text.match(/a\?:/g)?.length).toBeGreaterThan(MAX_SCHEMA_DEPTH - 4)
    expect(text.match(/a\?:/g)?.length).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH + 1)
    expect(text).toContain('a?: unknown }')
    // Each line is within the one-line budget plus its indentation, and the braces balance.
    const innermost = lines.find((line) => line.includes('a?: unknown'))!
    expect(innermost.trim().length).toBeLessThanOrEqual(100 + 'a?: '.length)
    expect(text.split('{').length).toBe(text.split('}').length)
  })

  it('S9.1 through arrays, unions and tuples, an object goes on one line exactly when it fits in 100 characters inside its parent', async () => {
    const through = (depth: number): Record<string, unknown> =>
      depth === 0 ? { type: 'number' } : { type: 'object', properties: { list: { type: 'array', items: { anyOf: [through(depth - 1), { type: 'string' }] } }, pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } }
    expect(await generateDeclarations([tool('mixed', through(4))], { embedded: true })).toBe(`declare const tools: {
  /** The mixed tool. */
  mixed(args: {
    list?: ({
      list?: ({ list?: ({ list?: (number | string)[]; pair?: [string] } | string)[]; pair?: [string] } | string)[]
      pair?: [string]
    } | string)[]
    pair?: [string]
  }): Promise<string>
}
`)
  })
})
