/**
 * edit_file on a file changed on disk since it was read (S8 read-before-edit): the staleness
 * answer of the `fs/write-gate` comes before any judgement of `old` against the new content, so
 * the model rereads the file instead of chasing "occurs 2 times" or "not found" in text it has
 * not seen (a tester got those first).
 */
import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type WorkspaceFixture, workspaceFixture } from './workspace-fixture.ts'

let ws: WorkspaceFixture
beforeEach(async () => {
  ws = await workspaceFixture()
  fs.writeFileSync(ws.file('a.txt'), 'one\ntwo\nthree\n')
  await ws.call('read_file', { path: 'a.txt' })
})
afterEach(() => ws.cleanup())

const STALE = /changed on disk since it was last read.*Read it again with read_file/

describe('edit_file on a file changed since it was read (S8)', () => {
  it('S8 `old` now occurring twice: the answer is that the file changed, not that `old` is ambiguous', async () => {
    fs.writeFileSync(ws.file('a.txt'), 'one\ntwo\ntwo\nthree\n')
    const result = await ws.call('edit_file', { path: 'a.txt', old: 'two', new: 'TWO' })
    expect(result.error?.message).toMatch(STALE)
    expect(result.error?.message).not.toMatch(/occurs/)
    expect(fs.readFileSync(ws.file('a.txt'), 'utf8')).toBe('one\ntwo\ntwo\nthree\n')
  })

  it('S8 `old` no longer in the file: the answer is that the file changed, not that `old` was not found', async () => {
    fs.writeFileSync(ws.file('a.txt'), 'one\nthree\n')
    const result = await ws.call('edit_file', { path: 'a.txt', old: 'two', new: 'TWO' })
    expect(result.error?.message).toMatch(STALE)
    expect(result.error?.message).not.toMatch(/not found/)
  })

  it('S8 `old` not found in a file read and unchanged is still reported as not found', async () => {
    const result = await ws.call('edit_file', { path: 'a.txt', old: 'four', new: '4' })
    expect(result.error?.message).toMatch(/was not found in a\.txt/)
  })
})
