/**
 * Journal records over the 1 MiB cap (S11.3, S11.5): capping drops the largest fields first and
 * keeps what fits, and `ptc replay` shows a record with a field left out as a generic card that
 * says what was left out, never handing the `{"$omitted"}` placeholder to the tool's own
 * presenters or `output.render` (a tester's replay printed `Updated undefined (undefined bytes…`).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as Journal from '../../../src/journal/journal.ts'
import { journalContent } from '../../../src/journal/rendered-content.ts'
import type { Tool } from '../../../src/tools/define-tool.ts'
import { callCardText, replayJournal, resultCardText, type ToolLookup } from '../../../src/present/replay.ts'
import { workspaceFixture, type WorkspaceFixture } from '../builtin/workspace-fixture.ts'

let fixture: WorkspaceFixture | undefined
afterEach(() => {
  fixture?.cleanup()
  fixture = undefined
})

const records = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)

describe('oversized journal records (S11.3, S11.5)', () => {
  it('S11.3 capRecord drops the largest field first and keeps a value that fits once the arguments are left out', () => {
    const args = { path: 'huge.txt', content: 'q'.repeat(2 * 1024 * 1024) }
    const value = { path: '/w/huge.txt', listing: 'v'.repeat(300 * 1024) }
    const line = Journal.capRecord({ type: 'tool/result', seq: 2, callId: 'c', name: 'write_file', arguments: args, isError: false, value, durationMs: 3 })
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(Journal.MAX_RECORD_BYTES)
    expect(JSON.parse(line)).toEqual({ type: 'tool/result', seq: 2, callId: 'c', name: 'write_file', arguments: { $omitted: `${JSON.stringify(args).length} bytes` }, isError: false, value, durationMs: 3 })
    // Two fields that each fit but not together: only the larger goes.
    const two = JSON.parse(Journal.capRecord({ type: 'tool/result', seq: 3, arguments: { a: 'a'.repeat(600 * 1024) }, value: { b: 'b'.repeat(500 * 1024) } })) as Record<string, unknown>
    expect(two.arguments).toEqual({ $omitted: expect.stringMatching(/^\d+ bytes$/) })
    expect(two.value).toEqual({ b: 'b'.repeat(500 * 1024) })
  })

  it('S11.5 a placeholder is never rendered: journalContent gives no content for a record with an omitted field', () => {
    const render = (args: unknown, value: unknown) => [{ type: 'text' as const, text: `${(args as { path?: string }).path} ${(value as { n?: number }).n}` }]
    const tool = { output: { render } } as unknown as Pick<Tool, 'output'>
    expect(journalContent(tool, { contentFrom: 'render', arguments: { path: 'a' }, value: { n: 1 } })).toEqual([{ type: 'text', text: 'a 1' }])
    expect(journalContent(tool, { contentFrom: 'render', arguments: { $omitted: '9 bytes' }, value: { n: 1 } })).toBeUndefined()
    expect(journalContent(tool, { contentFrom: 'render', arguments: { path: 'a' }, value: { $omitted: '9 bytes' } })).toBeUndefined()
  })

  it('S11.3 ptc replay of a too-large write_file prints generic cards that say what the journal left out, and the later cards as live', async () => {
    fixture = await workspaceFixture()
    const { root, workspace } = fixture
    const file = join(workspace, '.journal.jsonl')
    await root.plugin(Journal, { file })
    const tools: ToolLookup = (name) => root.tools.get(name)
    let live = ''
    root.on('tool/call', (call) => (live += callCardText(tools, call)))
    root.on('tools/result', (result) => (live += resultCardText(tools, result)))
    const lines = Array.from({ length: 60_000 }, (_, i) => `--- ${'q'.repeat(30)}${i}`)
    const content = `${lines.join('\n')}\n`
    expect((await fixture.call('write_file', { path: 'huge.txt', content })).isError).toBe(false)
    const written = live
    expect((await fixture.call('read_file', { path: 'huge.txt', offset: 59_999, limit: 2 })).isError).toBe(false)
    expect((await fixture.call('edit_file', { path: 'huge.txt', old: lines.at(-1), new: 'last\nline' })).isError).toBe(false)

    const journaled = records(file)
    const argsBytes = Buffer.byteLength(JSON.stringify({ path: 'huge.txt', content }))
    expect(journaled[0]).toMatchObject({ type: 'tool/call', name: 'write_file', arguments: { $omitted: `${argsBytes} bytes` } })
    // The value (its listing about 262 KB) fits once the 2.4 MB of arguments are left out.
    expect(journaled[1]).toMatchObject({ type: 'tool/result', name: 'write_file', arguments: { $omitted: `${argsBytes} bytes` }, value: { path: join(workspace, 'huge.txt'), created: true, linesAdded: 60_000 } })

    const replayed = replayJournal(readFileSync(file, 'utf8'), tools)
    expect(replayed).not.toMatch(/undefined|\$omitted/)
    const [call, result] = replayed.split(/\n(?=\S)/)
    expect(call).toBe(`… write_file\n  arguments left out of the journal (${argsBytes} bytes over the 1 MiB a journal record holds)`)
    expect(result).toBe(`✓ write_file\n  arguments left out of the journal (${argsBytes} bytes over the 1 MiB a journal record holds)`)
    // Every other card is the one the live run printed.
    expect(replayed.slice(call!.length + result!.length + 2)).toBe(live.slice(written.length))
  })
})
