/**
 * Two hosts starting in one fresh workspace at once (two `ptc` commands, S8): the second to
 * create `.ptc/spill` or `.ptc/journal` finds it made by the first between its look and its
 * mkdir, and must start all the same (a package trial saw `ptc: internal error: EEXIST`). The
 * other process is stood in for by an mkdir that makes the folder, then fails as the loser does.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'

const raced = new Set<string>()
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  const mkdirSync = ((target: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
    const name = String(target)
    if (/[/\\]\.ptc[/\\](spill|journal)$/.test(name) && !raced.has(name)) {
      raced.add(name)
      real.mkdirSync(name) // the other process's
      throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${name}'`), { code: 'EEXIST' })
    }
    return real.mkdirSync(target, options)
  }) as typeof real.mkdirSync
  return { ...real, default: { ...real, mkdirSync }, mkdirSync }
})

const { createHost } = await import('../../../src/host/create-host.ts')

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true })
})

describe('the state folder made by another process at the same moment (S8)', () => {
  it('S8 a host starts when .ptc/spill and .ptc/journal appear between its look and its mkdir, and keeps its journal there', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-race-'))
    folders.push(workspace)
    const host = await createHost({ workspace, ptc: { isolation: 'inline' } })
    try {
      expect([...raced].map((name) => path.basename(name)).sort()).toEqual(['journal', 'spill'])
      expect(host.journalFile?.startsWith(path.join(fs.realpathSync(workspace), '.ptc', 'journal'))).toBe(true)
    } finally {
      await host.dispose()
    }
  })
})
