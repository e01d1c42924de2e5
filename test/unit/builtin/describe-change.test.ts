/**
 * describeChange (S11 diff card, S1.2 the fs write tools' value): hunks that turn the old text
 * into the new one, and a bounded cost: past MAX_DIFF_EDITS changed lines the change is one hunk
 * replacing the whole text, instead of a diff whose cost grows with the square of the edits
 * (a review stalled every session for 29 s with one edit_file of 16,000 lines).
 */
import { applyPatch, structuredPatch } from 'diff'
import { describe, expect, it } from 'vitest'
import { describeChange, MAX_DIFF_EDITS, MAX_DIFFED_LINES, MAX_LISTED_CHARS } from '../../../src/builtin/describe-change.ts'

/** `after`, rebuilt from `before` and the hunks, as a reader of the value would. */
const rebuilt = (before: string, hunks: ReturnType<typeof describeChange>['hunks']) => applyPatch(before, { oldFileName: 'a', newFileName: 'b', oldHeader: undefined, newHeader: undefined, hunks })

describe('describeChange', () => {
  it('S1.2 a small change is its own hunks with context, and they rebuild the new text', () => {
    const before = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const after = before.replace('line 20\n', 'changed\n')
    const change = describeChange(before, after)
    expect(change).toMatchObject({ linesAdded: 1, linesRemoved: 1, hunks: [{ oldStart: 18, oldLines: 7, newStart: 18, newLines: 7 }] })
    expect(rebuilt(before, change.hunks)).toBe(after)
  })

  it(`S1.2 a change of more than ${MAX_DIFF_EDITS} lines is one whole replacement hunk that still rebuilds the new text (CRLF, no final newline)`, () => {
    const before = Array.from({ length: 4_000 }, (_, i) => `line a ${i}`).join('\r\n')
    const after = before.replaceAll('a', 'b') + '\r\n'
    const change = describeChange(before, after)
    expect(change).toMatchObject({ linesAdded: 4_000, linesRemoved: 4_000, hunks: [{ oldStart: 1, oldLines: 4_000, newStart: 1, newLines: 4_000 }] })
    expect(change.hunks[0]!.lines[4_000]).toBe('\\ No newline at end of file')
    expect(rebuilt(before, change.hunks)).toBe(after)
    // Every other line changed: a full diff would keep the unchanged lines as context; past the
    // limit nothing is told apart, so the cost stays that of giving up.
    const lines = Array.from({ length: 1_000 }, (_, i) => `line ${i}`)
    const alternate = describeChange(lines.join('\n') + '\n', lines.map((line, i) => (i % 2 === 0 ? `${line}!` : line)).join('\n') + '\n')
    expect(alternate).toMatchObject({ linesAdded: 1_000, linesRemoved: 1_000, hunks: [{ oldLines: 1_000, newLines: 1_000 }] })
    expect(alternate.hunks[0]!.lines.filter((line) => line.startsWith(' '))).toEqual([])
    // A new file and an emptied one.
    expect(rebuilt('', describeChange('', after).hunks)).toBe(after)
    expect(describeChange(before, '')).toMatchObject({ linesAdded: 0, linesRemoved: 4_000 })
    expect(describeChange('', '')).toEqual({ hunks: [], linesAdded: 0, linesRemoved: 0 })
  })

  it('S1.2 only the changed part is diffed: hunks equal the full diff\'s for edits in a file, and always rebuild the new text', () => {
    const lines = Array.from({ length: 40 }, (_, k) => `line ${k}\n`)
    for (let i = 0; i < 200; i++) {
      const at = (i * 7) % 40
      const after = [...lines.slice(0, at), `new ${i}\n`, ...lines.slice(at + (i % 3))].join('')
      expect(describeChange(lines.join(''), after).hunks, `edit ${i}`).toEqual(structuredPatch('a', 'b', lines.join(''), after, undefined, undefined, { context: 3 }).hunks)
    }
    // Random texts of short lines, CRLF, no final newline: whatever the alignment, the hunks rebuild it.
    const pieces = ['a\n', 'b\n', 'é\n', 'x', '\r\n', '\n', 'dd\n']
    let seed = 11
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n)
    const text = (n: number) => Array.from({ length: random(n) }, () => pieces[random(pieces.length)]!).join('')
    for (let i = 0; i < 2_000; i++) {
      const before = text(30)
      const after = i % 2 === 0 ? before.slice(0, random(before.length + 1)) + text(4) + before.slice(random(before.length + 1)) : text(30)
      expect(rebuilt(before, describeChange(before, after).hunks), JSON.stringify({ before, after })).toBe(after)
    }
    // One line changed in 190,000: one hunk where the line is, its context around it.
    const big = Array.from({ length: 190_000 }, (_, k) => `line ${k}`).join('\n') + '\n'
    const change = describeChange(big, big.replace('line 95000\n', 'LINE 95000\n'))
    expect(change).toEqual({ linesAdded: 1, linesRemoved: 1, hunks: [{ oldStart: 94998, oldLines: 7, newStart: 94998, newLines: 7, lines: ['line 94997', 'line 94998', 'line 94999', '-line 95000', '+LINE 95000', 'line 95001', 'line 95002', 'line 95003'].map((line) => (/^[+-]/.test(line) ? line : ` ${line}`)) }] })
  })

  it(`S9.6 a change too large to list (4 million new lines) lists at most ${MAX_LISTED_CHARS} characters of lines and counts the rest in omittedLines, marked in the hunk`, () => {
    const change = describeChange('', '\n'.repeat(4_000_000))
    const listed = MAX_LISTED_CHARS / 4 // each line is `+`, charged 3 more for its JSON quotes and comma
    expect(change).toMatchObject({ linesAdded: 4_000_000, linesRemoved: 0, omittedLines: 4_000_000 - listed })
    const lines = change.hunks[0]!.lines
    expect(lines.length).toBe(listed + 1)
    expect(lines.at(-1)).toBe(`\\ ${4_000_000 - listed} more changed lines not listed`)
    expect(JSON.stringify(change).length).toBeLessThan(MAX_LISTED_CHARS + 1_000)
    // No line is listed cut to its sign alone (it would read as an empty line): lines charged 7
    // each leave 1 character of the budget after the last that fits.
    const short = describeChange('', 'aaa\n'.repeat(50_000)).hunks[0]!.lines
    expect(short.at(-2)).toBe('+aaa')
    expect(short.at(-1)).toMatch(/^\\ \d+ more changed lines not listed$/)
  })

  it('S9.6 a change over the listing budget still lists its added lines: 30,000 lines overwritten with one list that one', () => {
    const before = Array.from({ length: 30_000 }, (_, k) => `old line ${k}`).join('\n') + '\n'
    const whole = describeChange(before, 'short\n')
    expect(whole).toMatchObject({ linesAdded: 1, linesRemoved: 30_000 })
    const lines = whole.hunks[0]!.lines
    expect(lines.at(-2)).toBe('+short')
    expect(lines.at(-1)).toBe(`\\ ${whole.omittedLines} more changed lines not listed`)
    expect(lines.filter((line) => line.startsWith('-')).length + whole.omittedLines!).toBe(30_000)
    // Diffed line by line (400 removed lines of 1,000 characters, one added: under MAX_DIFF_EDITS), the same.
    const long = (k: number) => `${String(k).padStart(6, '0')}${'z'.repeat(994)}`
    const lines400 = Array.from({ length: 400 }, (_, k) => long(k))
    const diffed = describeChange(['keep', ...lines400, 'tail'].join('\n') + '\n', 'keep\nadded\ntail\n')
    expect(diffed).toMatchObject({ linesAdded: 1, linesRemoved: 400 })
    const listedLines = diffed.hunks.flatMap((hunk) => hunk.lines)
    expect(listedLines).toContain('+added')
    expect(listedLines.filter((line) => line.startsWith('-')).length + diffed.omittedLines!).toBe(400)
  })

  it('S9.6 one line longer than the listing budget is cut with an ellipsis; a diffed change over the budget drops its later hunks and counts their lines', () => {
    const long = describeChange('', `${'x'.repeat(3 * MAX_LISTED_CHARS)}\n`)
    expect(long.hunks[0]!.lines[0]).toBe(`+${'x'.repeat(MAX_LISTED_CHARS - 4)}…`)
    expect(long.linesAdded).toBe(1)
    expect(long.omittedLines).toBeUndefined()
    // Many small edits far apart, each line 1,000 characters: hunks past the budget are dropped.
    const line = (k: number) => `${String(k).padStart(6, '0')}${'y'.repeat(994)}\n`
    const before = Array.from({ length: 6_000 }, (_, k) => line(k)).join('')
    const after = Array.from({ length: 6_000 }, (_, k) => (k % 40 === 0 ? `changed ${k}\n` : line(k))).join('')
    const change = describeChange(before, after)
    expect(change.linesAdded).toBe(150)
    expect(change.linesRemoved).toBe(150)
    expect(change.hunks.length).toBeLessThan(150)
    const listedChanged = change.hunks.flatMap((hunk) => hunk.lines).filter((text) => /^[+-]/.test(text)).length
    expect(listedChanged + change.omittedLines!).toBe(300)
    expect(change.hunks.at(-1)!.lines.at(-1)).toMatch(/^\\ \d+ more changed lines not listed$/)
  })

  it(`S1.2 a changed part of more than ${MAX_DIFFED_LINES} lines is not diffed line by line: one whole replacement, its counts exact`, () => {
    const before = Array.from({ length: MAX_DIFFED_LINES }, (_, k) => `${k}`).join('\n') + '\n'
    const after = Array.from({ length: MAX_DIFFED_LINES }, (_, k) => (k % 2 === 0 ? `${k}` : 'y')).join('\n') + '\n'
    const change = describeChange(before, after)
    expect(change.hunks).toHaveLength(1)
    expect(change).toMatchObject({ linesAdded: MAX_DIFFED_LINES, linesRemoved: MAX_DIFFED_LINES })
  })
})
