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
})
