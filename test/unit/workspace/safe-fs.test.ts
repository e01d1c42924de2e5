import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendFileSafeSync, openDirectorySync, openFileSync, readFd, type SafeArea, UnsafePathError, writeFileAtomicSync } from '../../../src/workspace/safe-fs.ts'

let ws: string
let outside: string
let area: SafeArea

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-safe-')))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'ptc-safe-out-')))
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET')
  area = { roots: [ws], protectedDirs: [path.join(ws, '.ptc')] }
})
afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

function code(fn: () => unknown): string | undefined {
  try {
    const result = fn() as { fd?: number } | number
    const fd = typeof result === 'number' ? result : result?.fd
    if (typeof fd === 'number') fs.closeSync(fd)
    return undefined
  } catch (error) {
    return UnsafePathError.isInstance(error) ? error.code : (error as NodeJS.ErrnoException).code
  }
}

describe('safe-fs (S8)', () => {
  it('reads a regular file through the fd and creates files under new directories', async () => {
    fs.writeFileSync(path.join(ws, 'a.txt'), 'hello')
    const { fd, stat, real } = openFileSync(path.join(ws, 'a.txt'), area, 'read')
    try {
      expect(stat.isFile()).toBe(true)
      expect(real).toBe(path.join(ws, 'a.txt'))
      expect((await readFd(fd, 100)).toString()).toBe('hello')
    } finally {
      fs.closeSync(fd)
    }
    const created = openFileSync(path.join(ws, 'x/y/new.txt'), area, 'create')
    fs.closeSync(created.fd)
    expect(fs.statSync(path.join(ws, 'x/y/new.txt')).isFile()).toBe(true)
  })

  it('S9.7 a read cancelled while its last read was in flight throws the reason instead of handing back the bytes', async () => {
    fs.writeFileSync(path.join(ws, 'empty.txt'), '')
    const { fd } = openFileSync(path.join(ws, 'empty.txt'), area, 'read')
    try {
      const controller = new AbortController()
      const reading = readFd(fd, 100, controller.signal)
      // The one read (of nothing) is in flight: the deadline passes now.
      controller.abort(new Error('the run ended'))
      await expect(reading).rejects.toThrow('the run ended')
    } finally {
      fs.closeSync(fd)
    }
  })

  it('refuses a symlink as the final component, even one that points inside', () => {
    fs.writeFileSync(path.join(ws, 'in.txt'), 'x')
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'out-link'))
    fs.symlinkSync(path.join(ws, 'in.txt'), path.join(ws, 'in-link'))
    for (const mode of ['read', 'overwrite', 'append', 'create'] as const) {
      expect(code(() => openFileSync(path.join(ws, 'out-link'), area, mode)), mode).toBe('path-not-regular')
      expect(code(() => openFileSync(path.join(ws, 'in-link'), area, mode)), mode).toBe('path-not-regular')
    }
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET')
  })

  it('a dangling symlink is never followed to create its target', () => {
    const target = path.join(outside, 'planted.txt')
    fs.symlinkSync(target, path.join(ws, 'dangling'))
    expect(code(() => openFileSync(path.join(ws, 'dangling'), area, 'create'))).toBe('path-not-regular')
    expect(code(() => appendFileSafeSync(path.join(ws, 'dangling'), area, 'x'))).toBe('path-not-regular')
    expect(code(() => openFileSync(path.join(ws, 'dangling'), area, 'read'))).toBe('path-not-regular')
    expect(fs.existsSync(target)).toBe(false)
  })

  it('refuses a symlinked directory component, including one swapped in for a checked directory', () => {
    fs.symlinkSync(outside, path.join(ws, 'd'))
    expect(code(() => openFileSync(path.join(ws, 'd/secret.txt'), area, 'read'))).toBe('path-swapped')
    expect(code(() => openFileSync(path.join(ws, 'd/new.txt'), area, 'create'))).toBe('path-swapped')
    expect(code(() => writeFileAtomicSync(path.join(ws, 'd/new.txt'), area, 'x'))).toBe('path-swapped')
    expect(fs.readdirSync(outside)).toEqual(['secret.txt'])
  })

  it('an opened directory cannot be swapped: /proc/self/fd/<fd>/name stays in the directory that was opened', () => {
    fs.mkdirSync(path.join(ws, 'd'))
    const fd = openDirectorySync(path.join(ws, 'd'), area)
    try {
      // The attacker swaps `d` for a symlink to outside after the directory was verified.
      fs.renameSync(path.join(ws, 'd'), path.join(ws, 'd.moved'))
      fs.symlinkSync(outside, path.join(ws, 'd'))
      fs.writeFileSync(`/proc/self/fd/${fd}/f.txt`, 'data')
    } finally {
      fs.closeSync(fd)
    }
    expect(fs.readFileSync(path.join(ws, 'd.moved/f.txt'), 'utf8')).toBe('data')
    expect(fs.existsSync(path.join(outside, 'f.txt'))).toBe(false)
  })

  it('a FIFO is refused promptly for reading and writing, never opened for blocking I/O', () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe')])
    // Opening a FIFO without a writer for blocking I/O would never return: returning at all is prompt.
    for (const mode of ['read', 'overwrite', 'append'] as const) expect(code(() => openFileSync(path.join(ws, 'pipe'), area, mode)), mode).toBe('path-not-regular')
  })

  it('devices and sockets are refused even where every location is allowed', async () => {
    const everywhere: SafeArea = { roots: ['/'] }
    expect(code(() => openFileSync('/dev/null', everywhere, 'read'))).toBe('path-not-regular')
    expect(code(() => openFileSync('/dev/zero', everywhere, 'overwrite'))).toBe('path-not-regular')
    const net = await import('node:net')
    const server = net.createServer().listen(path.join(ws, 'sock'))
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      expect(code(() => openFileSync(path.join(ws, 'sock'), area, 'read'))).toBe('path-not-regular')
    } finally {
      server.close()
    }
  })

  it('refuses paths outside the area and writes under a protected folder; reads there are fine', () => {
    expect(code(() => openFileSync(path.join(outside, 'secret.txt'), area, 'read'))).toBe('path-outside-area')
    fs.mkdirSync(path.join(ws, '.ptc/spill'), { recursive: true })
    fs.writeFileSync(path.join(ws, '.ptc/spill/r.json'), '{}')
    expect(code(() => openFileSync(path.join(ws, '.ptc/spill/r.json'), area, 'read'))).toBeUndefined()
    expect(code(() => openFileSync(path.join(ws, '.ptc/spill/r.json'), area, 'overwrite'))).toBe('path-protected')
    expect(code(() => openFileSync(path.join(ws, '.ptc/spill/x.json'), area, 'create'))).toBe('path-protected')
    expect(fs.existsSync(path.join(ws, '.ptc/spill/x.json'))).toBe(false)
  })

  it('writeFileAtomicSync replaces a symlink at the final name instead of writing through it', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'out.json'))
    const written = writeFileAtomicSync(path.join(ws, 'out.json'), { roots: [ws] }, 'mine')
    expect(written).toBe(path.join(ws, 'out.json'))
    expect(fs.lstatSync(path.join(ws, 'out.json')).isFile()).toBe(true)
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET')
  })
})
