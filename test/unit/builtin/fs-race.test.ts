/**
 * Red-team regressions (S8): a concurrent process (a background `bash` job) swaps a path between
 * the fs tools' check and their open. Deterministic forms hook the gap through the tools' own
 * events; the flipper forms run a real swapping child process for a bounded time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { contentText, type WorkspaceFixture, workspaceFixture } from './workspace-fixture.ts'

let ws: WorkspaceFixture
let flipper: ChildProcess | undefined
beforeEach(async () => {
  ws = await workspaceFixture()
  fs.writeFileSync(path.join(ws.outside, 'secret.txt'), 'SECRET')
})
afterEach(() => {
  if (flipper?.pid) flipper.kill('SIGKILL')
  flipper = undefined
  ws.cleanup()
})

/** Run `body` (a Node script run in `cwd`) as a tight loop in a child process until killed. */
async function startFlipper(cwd: string, body: string): Promise<void> {
  const script = `const fs = require('node:fs'); process.chdir(${JSON.stringify(cwd)}); process.stdout.write('ready\\n'); for (;;) { try { ${body} } catch {} }`
  flipper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise((resolve) => flipper!.stdout!.once('data', resolve))
}

/** Calls after the first `permission/escalation` of one execution: the gap between check and open. */
function afterCheck(action: () => void): () => void {
  const seen = new WeakSet<symbol>()
  return ws.root.on('permission/escalation', (execution) => {
    if (!seen.has(execution.token)) seen.add(execution.token)
    else action()
    return undefined
  })
}

describe('TOCTOU swaps between check and open (S8)', () => {
  it('write_file: a directory swapped for a symlink to outside after the check writes nothing outside', async () => {
    fs.mkdirSync(ws.file('d'))
    // The gate runs after the path was checked and before the write: the attacker swaps `d` there.
    ws.root.on('fs/write-gate', () => {
      fs.renameSync(ws.file('d'), ws.file('d.real'))
      fs.symlinkSync(ws.outside, ws.file('d'))
      return undefined
    })
    const result = await ws.call('write_file', { path: 'd/f.txt', content: 'PWNED' })
    expect(result.isError).toBe(true)
    expect(result.error?.kind).toBe('denied')
    expect(fs.readdirSync(ws.outside)).toEqual(['secret.txt'])
  })

  it('write_file overwrite: a file swapped for a symlink to outside after read-before-edit is not written through', async () => {
    fs.writeFileSync(ws.file('f.txt'), 'old')
    await ws.call('read_file', { path: 'f.txt' })
    ws.root.on('fs/write-gate', () => {
      fs.rmSync(ws.file('f.txt'))
      fs.symlinkSync(path.join(ws.outside, 'secret.txt'), ws.file('f.txt'))
      return undefined
    })
    const result = await ws.call('write_file', { path: 'f.txt', content: 'PWNED' })
    expect(result.error?.kind).toBe('denied')
    expect(fs.readFileSync(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('SECRET')
  })

  it('edit_file: a file replaced by another one (hard link to other data) after the read is refused', async () => {
    fs.writeFileSync(ws.file('f.txt'), 'alpha')
    fs.writeFileSync(ws.file('other.txt'), 'alpha')
    await ws.call('read_file', { path: 'f.txt' })
    ws.root.on('fs/write-gate', () => void fs.renameSync(ws.file('other.txt'), ws.file('f.txt')))
    const result = await ws.call('edit_file', { path: 'f.txt', old: 'alpha', new: 'beta' })
    expect(result.error?.message).toMatch(/replaced on disk since it was read/)
  })

  it('read_file: a file swapped for a symlink to outside after the check is not read', async () => {
    fs.writeFileSync(ws.file('r.txt'), 'inside')
    afterCheck(() => {
      fs.rmSync(ws.file('r.txt'), { force: true })
      fs.symlinkSync(path.join(ws.outside, 'secret.txt'), ws.file('r.txt'))
    })
    const result = await ws.call('read_file', { path: 'r.txt' })
    expect(result.error?.kind).toBe('denied')
    expect(JSON.stringify(result)).not.toContain('SECRET')
  })

  it('S8 read_file of a FIFO swapped in after the check returns promptly, and later reads still work', async () => {
    fs.writeFileSync(ws.file('p'), 'inside')
    fs.writeFileSync(ws.file('ok.txt'), 'fine')
    const dispose = afterCheck(() => {
      fs.rmSync(ws.file('p'), { force: true })
      execFileSync('mkfifo', [ws.file('p')])
    })
    // A FIFO without a writer, opened for blocking reads, would never return: returning at all is prompt.
    const result = await ws.call('read_file', { path: 'p' })
    dispose()
    expect(result.isError).toBe(true)
    expect(result.error?.message).toMatch(/FIFO|not a regular file/)
    // The libuv pool is not stuck: more reads than it has threads all complete.
    const reads = await Promise.all(Array.from({ length: 8 }, () => ws.call('read_file', { path: 'ok.txt' })))
    for (const read of reads) expect(contentText(read)).toContain('fine')
    // search over the FIFO skips it instead of blocking.
    const search = await ws.call('search', { pattern: 'fine' })
    expect(search.isError).toBe(false)
  })

  it('a flipping directory (real dir / symlink to outside) never lets write_file land outside', async () => {
    fs.mkdirSync(ws.file('d'))
    await startFlipper(ws.workspace, `fs.renameSync('d', 'd.real'); fs.symlinkSync(${JSON.stringify(ws.outside)}, 'd'); fs.unlinkSync('d'); fs.renameSync('d.real', 'd')`)
    let written = 0
    const deadline = Date.now() + 1500
    for (let attempt = 0; attempt < 400 && Date.now() < deadline; attempt++) {
      const result = await ws.call('write_file', { path: `d/f${attempt}.txt`, content: 'PWNED' })
      if (!result.isError) written++
    }
    flipper!.kill('SIGKILL')
    expect(fs.readdirSync(ws.outside)).toEqual(['secret.txt'])
  })

  it('a path flipping between a regular file and a symlink to outside never lets read_file return the outside file', async () => {
    fs.writeFileSync(ws.file('r.txt'), 'inside')
    const secret = JSON.stringify(path.join(ws.outside, 'secret.txt'))
    await startFlipper(ws.workspace, `fs.symlinkSync(${secret}, 'tmp-l'); fs.renameSync('tmp-l', 'r.txt'); fs.writeFileSync('tmp-f', 'inside'); fs.renameSync('tmp-f', 'r.txt')`)
    const deadline = Date.now() + 1500
    for (let attempt = 0; attempt < 400 && Date.now() < deadline; attempt++) {
      const result = await ws.call('read_file', { path: 'r.txt' })
      expect(JSON.stringify(result)).not.toContain('SECRET')
    }
  })
})
