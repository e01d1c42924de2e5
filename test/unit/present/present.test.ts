import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { bashTool } from '../../../src/builtin/bash.ts'
import { editFileTool } from '../../../src/builtin/edit-file.ts'
import { readFileTool } from '../../../src/builtin/read-file.ts'
import { searchTool } from '../../../src/builtin/search.ts'
import { writeFileTool } from '../../../src/builtin/write-file.ts'
import { presentCallCard, presentResultCard } from '../../../src/present/present.ts'
import type { ToolResult } from '../../../src/tools/types.ts'

// Presenters never touch the context (S11.3), so a bare one is enough to build the tools.
const ctx = new Context()
const read = readFileTool(ctx)
const bash = bashTool(ctx)
const edit = editFileTool(ctx)
const write = writeFileTool(ctx)
const search = searchTool(ctx)

const result = (over: Partial<ToolResult>): ToolResult => ({ callId: 'c1', name: 'read_file', arguments: {}, agent: 'a', isError: false, content: [], durationMs: 1, ...over })

describe('presentCallCard / presentResultCard', () => {
  it('S11.2 read and search have no pending card: the pending form is generic', () => {
    expect(presentCallCard(read, { path: 'a.ts' })).toEqual({ card: 'generic', phase: 'pending', title: 'Read a.ts', kind: 'read', locations: [{ path: 'a.ts' }] })
    expect(presentCallCard(search, { pattern: 'x' })).toMatchObject({ card: 'generic', phase: 'pending' })
  })

  it('S11.1 terminal and diff cards exist in the pending phase (S11.3: a pending hunk has no line numbers)', () => {
    expect(presentCallCard(bash, { command: 'ls' })).toEqual({ card: 'terminal', phase: 'pending', command: 'ls' })
    expect(presentCallCard(edit, { path: 'f', old: 'a', new: 'b' })).toEqual({ card: 'diff', phase: 'pending', path: 'f', diff: '--- f\n+++ f\n@@ proposed @@\n-a\n+b\n' })
    expect(presentCallCard(write, { path: 'f', content: 'x\n' })).toEqual({ card: 'diff', phase: 'pending', path: 'f', diff: '--- /dev/null\n+++ f\n@@ proposed @@\n+x\n' })
  })

  it('S11.5 malformed or old-log arguments fall back to the generic card, never throw', () => {
    expect(presentCallCard(bash, { cmd: 'ls' })).toEqual({ card: 'generic', phase: 'pending', title: 'bash {"cmd":"ls"}' })
    expect(presentCallCard(read, null)).toEqual({ card: 'generic', phase: 'pending', title: 'read_file null' })
    expect(presentCallCard(undefined, { path: 'p' }, 'gone_tool')).toEqual({ card: 'generic', phase: 'pending', title: 'gone_tool {"path":"p"}', locations: [{ path: 'p' }] })
    const hostile = { get path() { throw new Error('boom') } }
    expect(presentCallCard(read, hostile).card).toBe('generic')
  })

  it('S11.5 a malformed value or an error result gives the generic completed card', () => {
    const bad = result({ name: 'bash', arguments: { command: 'ls' }, value: { exitCode: 'zero' } as never, content: [{ type: 'text', text: 'weird' }] })
    expect(presentResultCard(bash, { command: 'ls' }, bad)).toEqual({ card: 'generic', phase: 'completed', title: 'bash {"command":"ls"}', body: 'weird' })
    const failed = result({ isError: true, error: { kind: 'denied', message: 'Denied: nope' }, content: [{ type: 'text', text: 'Error: Denied: nope' }] })
    expect(presentResultCard(read, { path: 'a' }, failed)).toEqual({ card: 'generic', phase: 'completed', title: 'read_file {"path":"a"}', locations: [{ path: 'a' }], body: 'Denied: nope', isError: true })
    expect(presentResultCard(undefined, undefined, null as never)).toEqual({ card: 'generic', phase: 'completed', title: 'tool' })
  })

  it('S11.3 presenters are pure: same input, same card; inputs are not mutated', () => {
    const args = Object.freeze({ path: 'a.ts' })
    const done = result({ value: { path: '/w/a.ts', text: 'x\ny', startLine: 4, endLine: 5, totalLines: 9, truncated: true, sizeBytes: 3, sha256: 'h' } })
    const once = presentResultCard(read, args, Object.freeze(done))
    expect(presentResultCard(read, args, done)).toEqual(once)
    expect(once).toEqual({ card: 'read', phase: 'completed', path: '/w/a.ts', startLine: 4, lines: ['x', 'y'], language: 'typescript' })
  })
})
