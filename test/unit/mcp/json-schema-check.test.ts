import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { jsonSchemaCheck } from '../../../src/mcp/json-schema-check.ts'

describe('JSON Schema validation of imported tools (S1.1: the registry validates, not the tool)', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { path: { type: 'string' }, tail: { type: 'array', items: { type: 'number' } } },
    required: ['path'],
    additionalProperties: false,
  }

  it('accepts what the schema accepts and keeps the value as is', () => {
    const check = jsonSchemaCheck(schema, { label: 'fs/read input' })
    expect(check.parse({ path: 'a', tail: [1] })).toEqual({ path: 'a', tail: [1] })
  })

  it('rejects with every ajv error, at its path', () => {
    const result = jsonSchemaCheck(schema, { label: 'fs/read input' }).safeParse({ tail: [1, 'x'], extra: 1 })
    expect(result.success).toBe(false)
    const pretty = z.prettifyError(result.error!)
    expect(pretty).toContain("must have required property 'path'")
    expect(pretty).toContain('unknown key "extra"')
    expect(pretty).toMatch(/must be number\s+→ at tail\[1\]/)
  })

  it('S1.1 names an unknown key next to the missing required one (file instead of path), even when extra keys are allowed', () => {
    const open = { type: 'object', properties: { path: { type: 'string' }, head: { type: 'number' } }, required: ['path'] }
    const result = jsonSchemaCheck(open, { label: 'fs/read input' }).safeParse({ file: 'a.txt' })
    expect(z.prettifyError(result.error!)).toBe(`✖ must have required property 'path'\n✖ unknown key "file"; the known keys are path, head`)
  })

  it('understands draft 2020-12 schemas', () => {
    const check = jsonSchemaCheck({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'array', prefixItems: [{ type: 'number' }] } }, required: ['a'] }, { label: 'x' })
    expect(check.safeParse({ a: [1, 'extra'] }).success).toBe(true)
    expect(check.safeParse({ a: ['not a number'] }).success).toBe(false)
    expect(check.safeParse({}).success).toBe(false)
  })

  it('degrades an uncompilable schema to "a JSON object" and says why', () => {
    const warnings: string[] = []
    const check = jsonSchemaCheck({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { label: 'bad/tool input', onUncompilable: (message) => warnings.push(message) })
    expect(warnings[0]).toMatch(/^bad\/tool input: the JSON Schema does not compile/)
    expect(check.safeParse({ a: 1 }).success).toBe(true)
    expect(check.safeParse('text').success).toBe(false)
  })
})
