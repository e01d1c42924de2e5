import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { argumentProblems } from '../../../src/pipeline/argument-problems.ts'

describe('argumentProblems (S6.5: invalid arguments said briefly, whatever they are)', () => {
  it('is zod\'s rendering for ordinary problems', () => {
    const error = z.strictObject({ path: z.string(), limit: z.number().int().min(1) }).safeParse({ path: 1, limit: 0 }).error!
    expect(argumentProblems(error)).toBe(z.prettifyError(error))
  })

  it('names 20 of 650,000 unexpected keys and counts the rest (zod rendered 7 MB)', () => {
    const args: Record<string, unknown> = { path: 'a' }
    for (let i = 0; i < 650_000; i++) args[`k${i}`] = 1
    const text = argumentProblems(z.strictObject({ path: z.string() }).safeParse(args).error!)
    expect(text).toBe(`✖ Unrecognized keys: ${Array.from({ length: 20 }, (_, i) => `"k${i}"`).join(', ')} and 649980 more`)
  })

  it('renders 20 issues and counts the rest', () => {
    const error = z.array(z.string()).safeParse(Array.from({ length: 50 }, () => 0)).error!
    const text = argumentProblems(error)
    expect(text.split('✖')).toHaveLength(21)
    expect(text.endsWith('\n(and 30 more problems)')).toBe(true)
  })

  it('S6.5 an enum of 5,000 values names 20 of them and counts the rest, so every issue keeps its path (the card cut at 2,000 mid-list)', () => {
    const values = Array.from({ length: 5_000 }, (_, i) => `v${i}`) as [string, ...string[]]
    const error = z.strictObject({ options: z.object({ mode: z.enum(values) }), count: z.number() }).safeParse({ options: { mode: 'x' }, count: 'q' }).error!
    const text = argumentProblems(error)
    expect(text).toBe([
      '✖ Invalid input: expected number, received string',
      '  → at count',
      `✖ Invalid option: expected one of ${values.slice(0, 20).map((value) => `"${value}"`).join('|')}|… and 4980 more`,
      '  → at options.mode',
    ].join('\n'))
    expect(text.length).toBeLessThan(2_000)
  })

  it('S6.5 a custom message over 500 characters is cut inside its issue, keeping its path and the next issue', () => {
    const error = z.strictObject({ a: z.string().refine(() => false, 'no '.repeat(10_000)), b: z.number() }).safeParse({ a: 'x', b: 'y' }).error!
    const text = argumentProblems(error)
    expect(text).toBe([
      `✖ ${'no '.repeat(10_000).slice(0, 500)}… (cut: the message had 30000 characters)`,
      '  → at a',
      '✖ Invalid input: expected number, received string',
      '  → at b',
    ].join('\n'))
  })

  it('S6.5 a custom message about a long enum is kept, not replaced by the list', () => {
    const values = Array.from({ length: 100 }, (_, i) => `v${i}`) as [string, ...string[]]
    const error = z.object({ mode: z.enum(values, { error: 'mode must be a documented mode' }) }).safeParse({ mode: 'x' }).error!
    expect(argumentProblems(error)).toBe(z.prettifyError(error))
  })
})
