/**
 * `capText` (SPEC S9.7 output caps, and the cut of a failure message crossing into a script,
 * S9.3): the first characters up to the cap, never half a surrogate pair, and how many were cut.
 */
import { describe, expect, it } from 'vitest'
import { capText } from '../../../src/cap-text.ts'

describe('capText (S9.7)', () => {
  it('S9.7 keeps text within the cap whole and cuts longer text at the cap, counting the rest', () => {
    expect(capText('abc', 3)).toEqual({ text: 'abc', cut: 0 })
    expect(capText('abcdef', 4)).toEqual({ text: 'abcd', cut: 2 })
  })

  it('S9.7 a cut that would split a surrogate pair keeps one character fewer, so the preview stays well-formed', () => {
    const { text, cut } = capText('ab😀cd', 3)
    expect(text).toBe('ab')
    expect(cut).toBe(4)
    expect(text.isWellFormed()).toBe(true)
    expect(capText('ab😀cd', 4)).toEqual({ text: 'ab😀', cut: 2 })
  })
})
