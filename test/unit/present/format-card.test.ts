import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { describeChange } from '../../../src/builtin/describe-change.ts'
import { presentChange } from '../../../src/builtin/file-change.ts'
import { writeFileTool } from '../../../src/builtin/write-file.ts'
import type { Card } from '../../../src/tools/cards.ts'
import { formatCard } from '../../../src/present/format-card.ts'
import { presentCallCard } from '../../../src/present/present.ts'

describe('formatCard', () => {
  const cases: [string, Card, string][] = [
    ['generic pending', { card: 'generic', phase: 'pending', title: 'Read a.ts', kind: 'read', locations: [{ path: 'a.ts', line: 3 }] }, '… Read a.ts\n  at a.ts:3'],
    ['generic error', { card: 'generic', phase: 'completed', title: 'write_file', body: 'Denied: no\nreally', isError: true }, '✗ write_file\n  Denied: no\n  really'],
    ['terminal pending', { card: 'terminal', phase: 'pending', command: 'npm test', cwd: 'pkg' }, '… $ npm test (in pkg)'],
    ['terminal completed', { card: 'terminal', phase: 'completed', command: 'false', output: 'out\n', exitCode: 1, signal: null }, '$ false\n  out\n  ✗ exit 1'],
    ['terminal killed', { card: 'terminal', phase: 'completed', command: 'sleep 9', output: '', exitCode: null, signal: 'SIGKILL' }, '$ sleep 9\n  ✗ killed by SIGKILL'],
    ['diff completed', { card: 'diff', phase: 'completed', path: '/w/f', diff: '--- /w/f\n+++ /w/f\n@@ -1,1 +1,1 @@\n-a\n+b\n', created: false }, '~ /w/f\n  @@ -1,1 +1,1 @@\n  -a\n  +b'],
    ['diff created', { card: 'diff', phase: 'completed', path: '/w/n', diff: '--- /dev/null\n+++ /w/n\n@@ -0,0 +1,1 @@\n+x\n', created: true }, '+ /w/n (created)\n  @@ -0,0 +1,1 @@\n  +x'],
    ['read', { card: 'read', phase: 'completed', path: '/w/a.ts', startLine: 9, lines: ['x', 'y'] }, '✓ read /w/a.ts (lines 9-10)\n   9 │ x\n  10 │ y'],
    ['search groups', { card: 'search', phase: 'completed', query: 'TODO', groups: [{ path: 'a.ts', matches: [{ line: 2, text: '// TODO' }] }] }, '✓ search TODO: 1 match in 1 file\n  a.ts\n    2: // TODO'],
    ['search paths', { card: 'search', phase: 'completed', query: '*.ts', paths: ['a.ts', 'b.ts'] }, '✓ *.ts: 2 paths\n  a.ts\n  b.ts'],
    ['web', { card: 'web', phase: 'completed', kind: 'fetch', url: 'https://x.test/', title: 'X' }, '✓ web fetch https://x.test/\n  X'],
  ]
  for (const [label, card, expected] of cases) {
    it(`S11.1 formats a ${label} card exactly`, () => expect(formatCard(card)).toBe(expected))
  }

  it('S11.3 is deterministic: the same card gives the same bytes', () => {
    const card: Card = { card: 'terminal', phase: 'completed', command: 'ls', output: 'a\nb\n', exitCode: 0, signal: null }
    expect(formatCard(structuredClone(card))).toBe(formatCard(card))
  })

  it('caps long bodies and neutralizes terminal control characters', () => {
    const card: Card = { card: 'terminal', phase: 'completed', command: 'seq 5', output: '1\n2\n3\n4\n5\n', exitCode: 0, signal: null }
    expect(formatCard(card, { maxLines: 2 })).toBe('$ seq 5\n  1\n  2\n  … 4 more lines')
    expect(formatCard({ card: 'generic', phase: 'completed', title: 'x\u001b[2J' })).toBe('✓ x\\x1b[2J')
    // Paths and working folders come from a script's arguments too (a security review's `at ../x\e[2K\rapproved.txt`).
    expect(formatCard({ card: 'generic', phase: 'completed', title: 't', locations: [{ path: '../x\u001b[2K\rok.txt', line: 3 }] })).toBe('✓ t\n  at ../x\\x1b[2K\\x0dok.txt:3')
    expect(formatCard({ card: 'terminal', phase: 'pending', command: 'ls', cwd: 'sub\u001b[34m' })).toBe('… $ ls (in sub\\x1b[34m)')
    // A malformed card's JSON fallback and a field printed as it is are made safe too.
    expect(formatCard({ card: 'generic', title: 5, body: 'x\u009b2J' } as never)).toBe('• card {"card":"generic","title":5,"body":"x\\x9b2J"}')
    expect(formatCard({ card: 'terminal', phase: 'completed', command: 'ls', exitCode: '\u001b[2J' } as never)).not.toMatch(/\u001b/)
  })

  it('S11.5 a malformed card prints as JSON instead of throwing', () => {
    expect(formatCard({ card: 'read', phase: 'completed', path: 'p', startLine: 1, lines: [1 as never] })).toBe('• card {"card":"read","phase":"completed","path":"p","startLine":1,"lines":[1]}')
    expect(formatCard({ card: 'hologram' } as never)).toBe('• card {"card":"hologram"}')
    expect(formatCard(null as never)).toBe('• card null')
  })

  it('S9.6 S11.1 a capped diff card counts the changed lines its value left out (omittedLines) in "… N more lines"', () => {
    const lines = 100_000
    const content = Array.from({ length: lines }, (_, i) => `line ${i}`).join('\n') + '\n'
    const change = describeChange('', content)
    expect(change.omittedLines).toBeGreaterThan(0)
    const value = { path: '/w/big', created: true, bytesWritten: content.length, sha256: 'h', ...change }
    const card = presentChange({ callId: 'c', name: 'write_file', arguments: {}, agent: 'a', isError: false, content: [], durationMs: 1, value })!
    // 12 body lines shown: the hunk header and 11 file lines; every other file line is "more".
    expect(formatCard(card).split('\n').at(-1)).toBe(`  … ${lines - 11} more lines`)
    // Shown in full, the value's own marker line says how many were left out.
    expect(formatCard(card, { maxLines: 1_000_000 }).split('\n').at(-1)).toBe(`  \\ ${change.omittedLines} more changed lines not listed`)
  })

  it('S11.1 a diff card keeps changed lines that look like a file header (a removed SQL comment "-- x" is "--- x")', () => {
    const change = describeChange('-- old note\n++ kept\nselect 1;\n', '+++ new\n++ kept\nselect 1;\n')
    const card = presentChange({ callId: 'c', name: 'edit_file', arguments: {}, agent: 'a', isError: false, content: [], durationMs: 1, value: { path: '/w/q.sql', created: false, bytesWritten: 28, sha256: 'h', ...change } })!
    expect(formatCard(card)).toBe('~ /w/q.sql\n  @@ -1,3 +1,3 @@\n  --- old note\n  ++++ new\n   ++ kept\n   select 1;')
  })

  it('S11.3 a pending write_file card says it creates or overwrites: whether the file exists is not known without I/O', () => {
    const write = writeFileTool(new Context())
    const text = formatCard(presentCallCard(write, { path: 'notes.md', content: 'x\n' }))
    expect(text).toBe('… notes.md (proposed content: creates the file, or overwrites it if it exists)\n  @@ proposed @@\n  +x')
    // An edit's pending card stays a proposed change of an existing file, its place not known.
    expect(formatCard({ card: 'diff', phase: 'pending', path: 'f', diff: '--- f\n+++ f\n@@ -1,1 +1,1 @@\n-a\n+b\n' })).toBe('… f (proposed)\n  @@ proposed @@\n  -a\n  +b')
  })
})
