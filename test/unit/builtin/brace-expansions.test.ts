import { describe, expect, it } from 'vitest'
import { braceExpansions } from '../../../src/builtin/brace-expansions.ts'

describe('braceExpansions (S8: glob refuses a pattern that would stall the host)', () => {
  it('counts what brace expansion makes: alternatives add, groups multiply, nesting and ranges included', () => {
    expect(braceExpansions('src/**/*.ts', 1_000)).toBe(1)
    expect(braceExpansions('*.{ts,tsx,js}', 1_000)).toBe(3)
    expect(braceExpansions('{a,b}/{c,d,e}', 1_000)).toBe(6)
    expect(braceExpansions('{a,{b,c}x{d,e}}', 1_000)).toBe(5)
    expect(braceExpansions('file{1..12}.txt', 1_000)).toBe(12)
    expect(braceExpansions('{a..e}{0..100..10}', 1_000)).toBe(55)
  })

  it('treats escapes, single groups and unclosed braces as literal text', () => {
    expect(braceExpansions('\\{a,b\\}', 1_000)).toBe(1)
    expect(braceExpansions('{a}', 1_000)).toBe(1)
    expect(braceExpansions('{a,b', 1_000)).toBe(1)
    expect(braceExpansions('{a,b}{', 1_000)).toBe(2)
  })

  it('stops counting past the cap, however many groups: 2^64 patterns count as cap + 1 at once', () => {
    expect(braceExpansions('{a,b}'.repeat(16), 256)).toBe(257)
    expect(braceExpansions('{a,b}'.repeat(64), 256)).toBe(257)
    expect(braceExpansions('{0..99999999}', 256)).toBe(257)
  })
})
