/**
 * Pending diff cards carry no line numbers (S11.1, S11.3): the card printed before a call runs is
 * built from its arguments alone, with no I/O before approval, so it cannot know where in the
 * file a change lands. A tester saw `@@ -1,1 +1,3 @@` for an edit at line 60,000, and a proposed
 * write_file read `@@ -0,0 +1,N @@` although it may overwrite. Completed cards keep the real ones.
 */
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { editFileTool } from '../../../src/builtin/edit-file.ts'
import { writeFileTool } from '../../../src/builtin/write-file.ts'
import { formatCard } from '../../../src/present/format-card.ts'
import { presentCallCard } from '../../../src/present/present.ts'
import type { DiffCard } from '../../../src/tools/cards.ts'

const NUMBERED = /^@@ -\d/m

describe('pending diff cards (S11.1, S11.3)', () => {
  it('S11.3 a pending edit_file card shows its hunk without line numbers, in the card and in the terminal', () => {
    const card = presentCallCard(editFileTool(new Context()), { path: 'huge.txt', old: '--- q59999', new: 'last\nline\nhere' }) as DiffCard
    expect(card).toMatchObject({ card: 'diff', phase: 'pending', path: 'huge.txt' })
    expect(card.diff).not.toMatch(NUMBERED)
    expect(card.diff).toBe('--- huge.txt\n+++ huge.txt\n@@ proposed @@\n---- q59999\n+last\n+line\n+here\n')
    expect(formatCard(card)).toBe('… huge.txt (proposed)\n  @@ proposed @@\n  ---- q59999\n  +last\n  +line\n  +here')
  })

  it('S11.3 a pending write_file card shows the new content without line numbers (it may overwrite)', () => {
    const card = presentCallCard(writeFileTool(new Context()), { path: 'notes.md', content: 'a\nb\n' }) as DiffCard
    expect(card.diff).not.toMatch(NUMBERED)
    expect(formatCard(card)).toBe('… notes.md (proposed content: creates the file, or overwrites it if it exists)\n  @@ proposed @@\n  +a\n  +b')
  })

  it('S11.3 the terminal prints any pending diff card without hunk line numbers; a completed one keeps them', () => {
    const diff = '--- f\n+++ f\n@@ -7,2 +7,2 @@ section\n a\n-b\n+c\n@@ -90 +90 @@\n-x\n+y\n'
    expect(formatCard({ card: 'diff', phase: 'pending', path: 'f', diff })).toBe('… f (proposed)\n  @@ proposed @@ section\n   a\n  -b\n  +c\n  @@ proposed @@\n  -x\n  +y')
    expect(formatCard({ card: 'diff', phase: 'completed', path: 'f', diff, created: false })).toBe('~ f\n  @@ -7,2 +7,2 @@ section\n   a\n  -b\n  +c\n  @@ -90 +90 @@\n  -x\n  +y')
  })
})
