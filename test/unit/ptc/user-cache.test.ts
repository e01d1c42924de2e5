/**
 * The per-user cache folder (issue 12): used only when it is safely ours, written atomically.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { userCacheFolder, writeCacheFile } from '../../../src/ptc/user-cache.ts'

const root = mkdtempSync(join(tmpdir(), 'ptc-user-cache-'))
const previous = process.env.PTC_CACHE_DIR
afterEach(() => {
  if (previous === undefined) delete process.env.PTC_CACHE_DIR
  else process.env.PTC_CACHE_DIR = previous
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('user cache folder (issue 12)', () => {
  it('PTC_CACHE_DIR names the folder, created private when missing; off turns the cache off', () => {
    process.env.PTC_CACHE_DIR = join(root, 'made', 'here')
    expect(userCacheFolder()).toBe(join(root, 'made', 'here'))
    expect(statSync(join(root, 'made', 'here')).mode & 0o777).toBe(0o700)
    process.env.PTC_CACHE_DIR = 'off'
    expect(userCacheFolder()).toBeUndefined()
  })

  it('a folder that is a symbolic link or not a directory is not used', () => {
    mkdirSync(join(root, 'real'))
    symlinkSync(join(root, 'real'), join(root, 'link'))
    process.env.PTC_CACHE_DIR = join(root, 'link')
    expect(userCacheFolder()).toBeUndefined()
    process.env.PTC_CACHE_DIR = join(import.meta.filename)
    expect(userCacheFolder()).toBeUndefined()
  })

  it('writeCacheFile replaces the file whole and leaves no temporary file; a failed write leaves nothing', () => {
    const folder = join(root, 'writes')
    mkdirSync(folder)
    expect(writeCacheFile(folder, 'entry.json', 'first')).toBe(true)
    expect(writeCacheFile(folder, 'entry.json', 'second')).toBe(true)
    expect(readFileSync(join(folder, 'entry.json'), 'utf8')).toBe('second')
    expect(readdirSync(folder)).toEqual(['entry.json'])
    expect(writeCacheFile(join(folder, 'missing'), 'entry.json', 'x')).toBe(false)
    expect(readdirSync(folder)).toEqual(['entry.json'])
  })
})
