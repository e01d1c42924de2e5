import fs, { type Dirent, type GlobOptionsWithFileTypes } from 'node:fs'
import fsPromises from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_GLOB_RESULTS } from '../../../src/builtin/glob.ts'
import { type WorkspaceFixture, workspaceFixture } from './workspace-fixture.ts'

let ws: WorkspaceFixture
beforeEach(async () => {
  ws = await workspaceFixture()
})
afterEach(() => {
  vi.restoreAllMocks()
  ws.cleanup()
})

describe('glob is bounded (S8, S9.6)', () => {
  it('S9.6 glob stops walking at its cap in a tree larger than the cap, with truncated set', async () => {
    const directories = 30
    const perDirectory = 50 // 1,500 files, more than the cap of 1,000
    expect(directories * perDirectory).toBeGreaterThan(MAX_GLOB_RESULTS)
    for (let d = 0; d < directories; d++) {
      fs.mkdirSync(ws.file(`d${d}`))
      for (let f = 0; f < perDirectory; f++) fs.writeFileSync(ws.file(`d${d}/f${f}.txt`), '')
    }
    // Count the entries the walk visits through the `exclude` filter it passes to `fs.glob` (called
    // once per entry read). Not a spy on `readdir`: Node's glob keeps the `readdir` it found on
    // its first use in the process, which another test file may have made (forks are reused).
    let visited = 0
    const realGlob = fsPromises.glob.bind(fsPromises)
    vi.spyOn(fsPromises, 'glob').mockImplementation(((pattern: string, options: GlobOptionsWithFileTypes & { exclude: (entry: Dirent) => boolean }) =>
      realGlob(pattern, { ...options, exclude: (entry: Dirent) => (visited++, options.exclude(entry)) })) as unknown as typeof fsPromises.glob)
    const result = await ws.call('glob', { pattern: '**/*.txt' })
    const value = result.value as { paths: string[]; truncated: boolean }
    expect(value.truncated).toBe(true)
    expect(value.paths).toHaveLength(MAX_GLOB_RESULTS)
    expect(value.paths).toEqual([...value.paths].sort())
    // The walk visited fewer entries than the tree has: it stopped instead of collecting every match.
    expect(visited).toBeGreaterThanOrEqual(MAX_GLOB_RESULTS)
    expect(visited).toBeLessThan(directories * perDirectory + directories)
  })

  it('S9.6 glob at exactly its cap is not truncated', async () => {
    fs.mkdirSync(ws.file('d'))
    for (let f = 0; f < MAX_GLOB_RESULTS; f++) fs.writeFileSync(ws.file(`d/f${f}.txt`), '')
    expect((await ws.call('glob', { pattern: 'd/*.txt' })).value).toMatchObject({ truncated: false })
  })
})

describe('glob never descends through a symbolic link (S8)', () => {
  const paths = async (pattern: string) => {
    const result = await ws.call('glob', { pattern })
    expect(result.isError, JSON.stringify(result.value)).toBeFalsy()
    return (result.value as { paths: string[] }).paths
  }
  beforeEach(() => {
    fs.writeFileSync(ws.file('inside.txt'), 'in')
    fs.mkdirSync(path.join(ws.outside, 'ssh'))
    fs.writeFileSync(path.join(ws.outside, 'adduser.conf'), 'secret')
    fs.writeFileSync(path.join(ws.outside, 'ssh', 'ssh_config'), 'secret')
  })
  const outsideNames = (listed: string[]) => listed.filter((entry) => /adduser|ssh/.test(entry))

  it('S8 a symlink to an outside directory is listed itself, and no file name under its target is', async () => {
    fs.symlinkSync(ws.outside, ws.file('link'))
    for (const pattern of ['link/**', 'link/*', 'link/ssh/*', 'link/adduser.conf', '{link,x}/*', '**/*', '**', '*/ssh/*', '**/ssh_config']) {
      const listed = await paths(pattern)
      expect(outsideNames(listed), pattern).toEqual([])
    }
    expect(await paths('link/**')).toEqual(['link'])
    expect(await paths('**/*')).toEqual(['inside.txt', 'link'])
  })

  it('S8 a symlink to an outside file is listed by its own name only', async () => {
    fs.symlinkSync(path.join(ws.outside, 'adduser.conf'), ws.file('conf-link'))
    expect(await paths('**/*')).toEqual(['conf-link', 'inside.txt'])
    expect(await paths('conf-link/**')).toEqual(['conf-link'])
  })

  it('S8 a symlink to an inside directory is listed as an entry but not descended into; its target is listed at its own path', async () => {
    fs.mkdirSync(ws.file('real/sub'), { recursive: true })
    fs.writeFileSync(ws.file('real/sub/a.txt'), 'a')
    fs.symlinkSync(ws.file('real'), ws.file('alias'))
    expect(await paths('alias/**')).toEqual(['alias'])
    expect(await paths('alias/sub/*')).toEqual([])
    expect(await paths('**/a.txt')).toEqual(['real/sub/a.txt'])
  })

  it('S8 `**` still lists the workspace root itself as "."', async () => {
    expect(await paths('**')).toEqual(['.', 'inside.txt'])
  })
})
