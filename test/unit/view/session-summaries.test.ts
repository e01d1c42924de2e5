import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JournalFolder } from '../../../src/view/journal-folder.ts'
import { SessionSummaries, stampOf } from '../../../src/view/session-summaries.ts'

let workspace: string
let dir: string
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-view-summaries-'))
  dir = join(workspace, '.ptc', 'journal')
  mkdirSync(dir, { recursive: true })
})
afterEach(() => rmSync(workspace, { recursive: true, force: true }))

const name = (minute: number) => `2026-12-01T08-${String(minute).padStart(2, '0')}-00-000Z-${minute}.jsonl`

describe('sessions list (S11.6)', () => {
  it('S11.6 pages of sessions, newest first; a page past the end is the last page', () => {
    for (let minute = 0; minute < 25; minute++) writeFileSync(join(dir, name(minute)), '')
    const summaries = new SessionSummaries(new JournalFolder(workspace))
    const first = summaries.page(1)
    expect([first.page, first.pages, first.total, first.sessions.length]).toEqual([1, 2, 25, 20])
    expect(first.sessions.slice(0, 2).map((session) => session.id)).toEqual([name(24), name(23)])
    const last = summaries.page(99)
    expect([last.page, last.sessions.map((session) => session.id)]).toEqual([2, [name(4), name(3), name(2), name(1), name(0)]])
    expect(summaries.page(Number.NaN).page).toBe(1)
  })

  it('S11.6 a journal without a time stamp in its name is placed by its last write', () => {
    writeFileSync(join(dir, name(10)), '')
    writeFileSync(join(dir, 'custom.jsonl'), '')
    const later = new Date('2026-12-01T09:00:00Z')
    utimesSync(join(dir, 'custom.jsonl'), later, later)
    expect(new SessionSummaries(new JournalFolder(workspace)).page(1).sessions.map((session) => [session.id, session.time])).toEqual([
      ['custom.jsonl', '2026-12-01T09:00:00.000Z'],
      [name(10), '2026-12-01T08:10:00.000Z'],
    ])
    expect(stampOf('nothing.jsonl')).toBeUndefined()
  })

  it('S11.6 counts follow a growing journal, a half-written last line is counted once complete', () => {
    const file = join(dir, name(1))
    writeFileSync(file, `${JSON.stringify({ type: 'tool/call', callId: 'r', name: 'run_code', agent: 'cli' })}\n`)
    const summaries = new SessionSummaries(new JournalFolder(workspace))
    const counts = () => {
      const [session] = summaries.page(1).sessions
      return [session!.runs, session!.calls, session!.failures, session!.running]
    }
    expect(counts()).toEqual([1, 1, 0, 1])
    appendFileSync(file, `${JSON.stringify({ type: 'tool/call', callId: 'r/a:1', name: 'echo' })}\n{"type":"tool/result","callId":"r/a:1","isError":`)
    expect(counts()).toEqual([1, 2, 0, 2])
    appendFileSync(file, `true}\n${JSON.stringify({ type: 'tool/result', callId: 'r', name: 'run_code', isError: false, value: { status: 'ok' } })}\n`)
    expect(counts()).toEqual([1, 2, 1, 0])
    writeFileSync(file, '')
    expect(counts()).toEqual([0, 0, 0, 0])
  })
})
