/**
 * Where a host's state lives (issue 14 item 4, S8, S9.7, S11.3): `<workspace>/.ptc` by default,
 * another folder with `stateDir`, nothing at all with `stateDir: false`; and journal retention
 * (by count and by total size), applied when a host starts, never to a journal still open.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHost, type Host, type HostOptions } from '../../../src/host/create-host.ts'
import { DEFAULT_JOURNAL_RETENTION, holdJournal, pruneJournals } from '../../../src/journal/journal-retention.ts'

let workspace: string
let elsewhere: string
const hosts: Host[] = []
beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-state-ws-')))
  elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-state-else-')))
})
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
  rmSync(workspace, { recursive: true, force: true })
  rmSync(elsewhere, { recursive: true, force: true })
})

async function host(options: HostOptions): Promise<Host> {
  const started = await createHost({ workspace, builtins: ['fs'], ptc: { isolation: 'inline', poolSize: 1 }, ...options })
  hosts.push(started)
  return started
}

/** `count` old journals of `bytes` bytes each in `dir`, the first the oldest. */
function oldJournals(dir: string, count: number, bytes = 10): string[] {
  mkdirSync(dir, { recursive: true })
  return Array.from({ length: count }, (_, i) => {
    const file = join(dir, `2020-01-01T00-00-${String(i).padStart(2, '0')}-000Z-1.jsonl`)
    writeFileSync(file, 'x'.repeat(bytes))
    const when = new Date(Date.UTC(2020, 0, 1, 0, 0, i))
    utimesSync(file, when, when)
    return file
  })
}

describe('createHost stateDir (issue 14 item 4)', { timeout: 60_000 }, () => {
  it('by default the journal and spills live in <workspace>/.ptc', async () => {
    const h = await host({})
    expect(h.journalDir).toBe(join(workspace, '.ptc', 'journal'))
    expect(h.journalFile?.startsWith(join(workspace, '.ptc', 'journal'))).toBe(true)
    await h.ctx.tools.execute({ name: 'list_dir', arguments: { path: '.' } })
    expect(readFileSync(h.journalFile!, 'utf8')).toMatch(/"type":"tool\/call"/)
  })

  it('another folder holds the journal and spills, and nothing is written in the workspace', async () => {
    const state = join(elsewhere, 'state')
    const h = await host({ stateDir: state })
    expect(h.journalDir).toBe(join(state, 'journal'))
    const result = await h.ctx.tools.execute({ name: 'run_code', arguments: { code: `return 'y'.repeat(60_000)` } })
    // The model is told where the spill is and that its tools, confined to the workspace, cannot read it.
    expect(JSON.stringify(result.content)).toContain(`was saved outside the workspace, to ${join(state, 'spill', 'default')}`)
    expect(readdirSync(join(state, 'spill', 'default'))).toHaveLength(1)
    expect(readdirSync(join(state, 'journal'))).toEqual([h.journalFile!.split('/').pop()])
    expect(readdirSync(workspace)).toEqual([])
  })

  it('a stateDir inside the workspace other than .ptc is refused (the tools could rewrite it)', async () => {
    await expect(createHost({ workspace, stateDir: join(workspace, 'state', 'deeper') })).rejects.toThrow(/stateDir .* is inside the workspace .*; use a folder outside it/)
    expect(readdirSync(workspace)).toEqual([])
  })

  it('stateDir: false writes nothing to disk: no .ptc, no journal, an oversized result is cut without a spill', async () => {
    const h = await host({ stateDir: false })
    expect(h.journalFile).toBeUndefined()
    expect(h.journalDir).toBeUndefined()
    const result = await h.ctx.tools.execute({ name: 'run_code', arguments: { code: `await tools.list_dir({ path: '.' }); return 'y'.repeat(60_000)` } })
    expect(JSON.stringify(result.content)).toMatch(/more characters omitted/)
    expect(existsSync(join(workspace, '.ptc'))).toBe(false)
    expect(readdirSync(workspace)).toEqual([])
  })
})

describe('journal retention (issue 14 item 4)', { timeout: 60_000 }, () => {
  it('the default keeps 100 journals and 100 MiB', () => {
    expect(DEFAULT_JOURNAL_RETENTION).toEqual({ maxFiles: 100, maxBytes: 100 * 1024 * 1024 })
  })

  it('a host start deletes the oldest journals past maxFiles, keeping its own', async () => {
    const old = oldJournals(join(workspace, '.ptc', 'journal'), 5)
    const h = await host({ journalRetention: { maxFiles: 3 } })
    const left = readdirSync(join(workspace, '.ptc', 'journal')).map((name) => join(workspace, '.ptc', 'journal', name)).sort()
    expect(left).toEqual([...old.slice(3), h.journalFile!].sort())
  })

  it('maxBytes keeps the newest journals that fit together, deleting every older one', async () => {
    const old = oldJournals(join(workspace, '.ptc', 'journal'), 4, 100)
    const h = await host({ journalRetention: { maxBytes: 250 } })
    const left = readdirSync(join(workspace, '.ptc', 'journal')).map((name) => join(workspace, '.ptc', 'journal', name)).sort()
    expect(left).toEqual([...old.slice(2), h.journalFile!].sort())
  })

  it('never deletes a journal this process holds open, even past the limit, nor other files', () => {
    const dir = join(workspace, 'journals')
    const [oldest] = oldJournals(dir, 3)
    writeFileSync(join(dir, 'notes.txt'), 'keep')
    const release = holdJournal(oldest!)
    expect(pruneJournals(dir, { maxFiles: 1 })).toHaveLength(2)
    expect(readdirSync(dir).sort()).toEqual([oldest!.split('/').pop(), 'notes.txt'].sort())
    release()
    oldJournals(dir, 2)
    // A path passed in `keep` stays whatever its age, and counts toward the bound.
    expect(pruneJournals(dir, { maxFiles: 1 }, [join(dir, '2020-01-01T00-00-00-000Z-1.jsonl')]).sort()).toEqual([join(dir, '2020-01-01T00-00-01-000Z-1.jsonl')])
  })

  it('journalRetention: false keeps every journal; an invalid retention is refused', async () => {
    const old = oldJournals(join(workspace, '.ptc', 'journal'), 3)
    await host({ journalRetention: false })
    for (const file of old) expect(existsSync(file)).toBe(true)
    await expect(createHost({ workspace, journalRetention: { maxFiles: 0 } })).rejects.toThrow('journalRetention.maxFiles must be a whole number ≥ 1, got 0.')
    await expect(createHost({ workspace, journalRetention: { files: 3 } as never })).rejects.toThrow(/unknown key "files"/)
  })
})
