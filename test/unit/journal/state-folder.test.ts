/**
 * Red-team regressions (S8): the host's own writes into `<workspace>/.ptc` (journal, spills) must
 * not follow a symlink a `bash` job planted there, and the host refuses to start on a planted one.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import * as Journal from '../../../src/journal/journal.ts'
import { writeSpill } from '../../../src/ptc/spill.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

let ws: string
let outside: string
beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-state-')))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'ptc-state-out-')))
})
afterEach(() => {
  vi.restoreAllMocks()
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

describe('the .ptc state folder (S8)', () => {
  it('a spill never follows a symlink planted in the spill folder (ln -s /outside .ptc/spill/<agent>)', () => {
    const spill = path.join(ws, '.ptc', 'spill')
    fs.mkdirSync(spill, { recursive: true })
    fs.symlinkSync(outside, path.join(spill, 'agent-1'))
    expect(() => writeSpill(path.join(spill, 'agent-1'), 'r.json', 'ATTACKER', spill)).toThrow(/symbolic link/)
    // A symlink at the final name is replaced by the spill file, not written through.
    fs.mkdirSync(path.join(spill, 'agent-2'))
    fs.symlinkSync(path.join(outside, 'target'), path.join(spill, 'agent-2', 'r.json'))
    const written = writeSpill(path.join(spill, 'agent-2'), 'r.json', 'mine', spill)
    expect(fs.readFileSync(written, 'utf8')).toBe('mine')
    expect(fs.readdirSync(outside)).toEqual([])
  })

  it('the journal stops writing (journal/error) when its folder is swapped for a symlink, and writes nothing outside', async () => {
    const folder = path.join(ws, '.ptc', 'journal')
    const file = path.join(folder, 's.jsonl')
    const root = await createRoot()
    await root.plugin(Journal, { file })
    const errors: string[] = []
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('journal/error', (failure) => void errors.push(String((failure.error as Error).message)))
    })
    vi.spyOn(console, 'error').mockImplementation(() => {})
    await root.tools.execute({ name: 'echo', arguments: { text: 'one' } })
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(2)
    fs.renameSync(folder, path.join(ws, '.ptc', 'journal.moved'))
    fs.symlinkSync(outside, folder)
    await root.tools.execute({ name: 'echo', arguments: { text: 'two' } })
    expect(errors.length).toBe(2)
    expect(fs.readdirSync(outside)).toEqual([])
    // A symlink planted as the journal file itself is not followed either.
    fs.rmSync(folder)
    fs.renameSync(path.join(ws, '.ptc', 'journal.moved'), folder)
    fs.rmSync(file)
    fs.symlinkSync(path.join(outside, 'log'), file)
    await root.tools.execute({ name: 'echo', arguments: { text: 'three' } })
    expect(fs.readdirSync(outside)).toEqual([])
  })

  it('createHost creates .ptc/spill and .ptc/journal before any tool runs', async () => {
    const host = await createHost({ workspace: ws, journal: false })
    try {
      expect(fs.lstatSync(path.join(ws, '.ptc', 'spill')).isDirectory()).toBe(true)
      expect(fs.lstatSync(path.join(ws, '.ptc', 'journal')).isDirectory()).toBe(true)
    } finally {
      await host.dispose()
    }
  })

  it('createHost refuses to start when .ptc, .ptc/spill or .ptc/journal is a symlink or not a directory', async () => {
    fs.symlinkSync(outside, path.join(ws, '.ptc'))
    await expect(createHost({ workspace: ws, journal: false })).rejects.toThrow(/\.ptc is a symbolic link; ptc-runner keeps the session journal/)
    fs.rmSync(path.join(ws, '.ptc'))
    fs.mkdirSync(path.join(ws, '.ptc'))
    fs.symlinkSync(outside, path.join(ws, '.ptc', 'spill'))
    await expect(createHost({ workspace: ws, journal: false })).rejects.toThrow(/spill is a symbolic link/)
    fs.rmSync(path.join(ws, '.ptc', 'spill'))
    fs.writeFileSync(path.join(ws, '.ptc', 'journal'), '')
    await expect(createHost({ workspace: ws, journal: false })).rejects.toThrow(/journal is not a directory/)
    expect(fs.readdirSync(outside)).toEqual([])
  })
})
