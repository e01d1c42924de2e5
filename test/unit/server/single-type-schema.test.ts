/**
 * `withSingleTypes` (issue 10, the MCP Inspector's --strict): every `type` array of a listed
 * schema becomes `anyOf` branches of one type each, at any depth, accepting exactly the same values.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { jobReadSchema } from '../../../src/jobs/job-schemas.ts'
import { withSingleTypes } from '../../../src/server/single-type-schema.ts'

const typeArrays = (value: unknown): number =>
  Array.isArray(value) ? value.reduce((sum: number, item) => sum + typeArrays(item), 0)
    : typeof value === 'object' && value !== null
      ? Object.entries(value).reduce((sum, [key, child]) => sum + (key === 'type' && Array.isArray(child) ? 1 : typeArrays(child)), 0)
      : 0

describe('withSingleTypes (issue 10)', () => {
  it('a nullable field becomes anyOf branches of one type, its other keywords kept', () => {
    expect(withSingleTypes({ type: 'object', properties: { exitCode: { type: ['number', 'null'], description: 'Exit code.' } } })).toEqual({
      type: 'object',
      properties: { exitCode: { anyOf: [{ type: 'number' }, { type: 'null' }], description: 'Exit code.' } },
    })
  })

  it('reaches items, nested objects and properties named like keywords; leaves data (enum, const, default) alone', () => {
    expect(
      withSingleTypes({
        type: 'array',
        items: { type: 'object', properties: { default: { type: ['string', 'null'] }, type: { type: ['integer'] } }, required: ['default'] },
        default: [{ type: ['kept'] }],
      }),
    ).toEqual({
      type: 'array',
      items: { type: 'object', properties: { default: { anyOf: [{ type: 'string' }, { type: 'null' }] }, type: { type: 'integer' } }, required: ['default'] },
      default: [{ type: ['kept'] }],
    })
  })

  it('a node with its own anyOf keeps it, and both must hold', () => {
    expect(withSingleTypes({ type: ['string', 'null'], anyOf: [{ minLength: 2 }, { const: null }] })).toEqual({
      allOf: [{ anyOf: [{ minLength: 2 }, { const: null }] }, { anyOf: [{ type: 'string' }, { type: 'null' }] }],
    })
  })

  it("S10.6 job_read's output schema has no type array left and accepts exactly what it did", () => {
    const original = z.toJSONSchema(jobReadSchema, { io: 'output' }) as Record<string, unknown>
    expect(typeArrays(original)).toBeGreaterThan(0)
    const single = withSingleTypes(original)
    expect(typeArrays(single)).toBe(0)
    const ajv = new Ajv2020({ strict: false })
    const [before, after] = [ajv.compile(original), ajv.compile(single)]
    const base = { jobId: 'bash-1', kind: 'bash', label: 'ls', status: 'exited', totalBytes: 3, droppedBytes: 0, output: 'a\n', offset: 0, nextOffset: 2, missedBytes: 0 }
    for (const value of [
      { ...base, exitCode: 0, signal: null },
      { ...base, exitCode: null, signal: 'SIGKILL' },
      { ...base, exitCode: 'zero', signal: null },
      { ...base, exitCode: 0, signal: 9 },
      { ...base, signal: null },
    ]) expect(after(value)).toBe(before(value))
  })
})
