import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import { MAX_PATTERN_CHARS } from '../../../src/builtin/search.ts'
import { type WorkspaceFixture, workspaceFixture } from './workspace-fixture.ts'

let ws: WorkspaceFixture
const hostPath = process.env.PATH
beforeEach(async () => {
  ws = await workspaceFixture()
})
afterEach(() => {
  process.env.PATH = hostPath
  ws.cleanup()
})

/** Processes whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid)
    } catch {} // Gone meanwhile.
  }
  return found
}

describe('search runs ripgrep, not a backtracking regex on the host (S8)', () => {
  it('S8 a catastrophic pattern ^(a+)+$ is answered (no match on "aaa…a!", a match on "aaaa"), not left backtracking', async () => {
    fs.writeFileSync(ws.file('evil.txt'), `${'a'.repeat(40)}!\n`)
    fs.writeFileSync(ws.file('fine.txt'), 'aaaa\n')
    const result = await ws.call('search', { pattern: '^(a+)+$' })
    expect(result.isError).toBe(false)
    expect(result.value).toMatchObject({ files: [{ path: 'fine.txt', matches: [{ line: 1, text: 'aaaa' }] }], matchCount: 1, filesSearched: 2, truncated: false })
  })

  it('S8 look-around and backreferences are argument errors that say what is not supported and what to do instead', async () => {
    fs.writeFileSync(ws.file('a.txt'), 'foo bar\n')
    for (const pattern of ['foo(?= bar)', 'foo(?! baz)', '(?<=foo) bar', '(?<!x)foo']) {
      const refused = await ws.call('search', { pattern })
      expect(refused.error?.kind, pattern).toBe('invalid-arguments')
      expect(refused.error?.message, pattern).toMatch(/look-ahead and look-behind .* are not supported by search's linear-time engine: match the surrounding text itself/)
    }
    for (const pattern of ['(o)\\1', '(?<c>o)\\k<c>']) {
      const refused = await ws.call('search', { pattern })
      expect(refused.error?.kind, pattern).toBe('invalid-arguments')
      expect(refused.error?.message, pattern).toMatch(/backreferences .* are not supported .*: search for one part of the text and check the repetition in code/)
    }
    // The same syntax inside a character class or escaped is fine.
    expect((await ws.call('search', { pattern: '[(?=]foo|\\\\1|\\(\\?=' })).isError).toBe(false)
    // Other syntax errors come from ripgrep, without its hint to use PCRE2 (search has no such switch).
    const invalid = await ws.call('search', { pattern: 'a[' })
    expect(invalid.error?.message).toMatch(/not a valid regular expression for search.*\n.*Rust regex syntax/s)
    expect(invalid.error?.message).not.toMatch(/PCRE2/)
  })

  it('S8 a pattern longer than MAX_PATTERN_CHARS is an argument error saying what to do, not spawn E2BIG', async () => {
    fs.writeFileSync(ws.file('a.txt'), 'aaa\n')
    const refused = await ws.call('search', { pattern: 'a'.repeat(1_000_000) })
    expect(refused.error?.kind).toBe('invalid-arguments')
    expect(refused.error?.message).toMatch(new RegExp(`A search pattern takes at most ${MAX_PATTERN_CHARS} characters; search for a shorter, more general pattern`))
    expect((await ws.call('search', { pattern: 'a'.repeat(MAX_PATTERN_CHARS) })).isError).toBe(false)
    const glob = await ws.call('search', { pattern: 'a', glob: 'x'.repeat(200_000) })
    expect(glob.error?.kind).toBe('invalid-arguments')
    expect(glob.error?.message).toMatch(/A glob takes at most 10000 characters/)
  })

  it('S8 files that .gitignore ignores are not searched, in a git repository or not', async () => {
    fs.writeFileSync(ws.file('.gitignore'), 'build/\n*.log\n')
    fs.mkdirSync(ws.file('build'))
    fs.writeFileSync(ws.file('build/out.js'), 'NEEDLE\n')
    fs.writeFileSync(ws.file('debug.log'), 'NEEDLE\n')
    fs.writeFileSync(ws.file('src.ts'), 'NEEDLE\n')
    expect(await ws.call('search', { pattern: 'NEEDLE' })).toMatchObject({ value: { files: [{ path: 'src.ts' }], matchCount: 1 } })
  })

  it('S1.3 a search still running when its call is stopped is killed, and the call ends as cancelled', async () => {
    const marker = `${Date.now() % 100_000}.${process.pid}`
    fs.mkdirSync(ws.file('bin'))
    fs.writeFileSync(ws.file('bin/rg'), `#!/bin/sh\nexec sleep ${marker}\n`, { mode: 0o755 })
    process.env.PATH = `${ws.file('bin')}:${hostPath}`
    const stop = new AbortController()
    const call = ws.call('search', { pattern: 'x' }, { agent: 'agent-1', signal: stop.signal })
    await expect.poll(() => processesWith(`sleep\0${marker}`).length, { timeout: 20_000 }).toBe(1)
    stop.abort()
    expect((await call).error?.kind).toBe('cancelled')
    await expect.poll(() => processesWith(`sleep\0${marker}`), { timeout: 20_000 }).toEqual([])
  })

  it('S8 without ripgrep on PATH, search fails saying how to install it', async () => {
    process.env.PATH = path.join(ws.workspace, 'no-such-dir')
    const result = await ws.call('search', { pattern: 'x' })
    expect(result.error?.message).toMatch(/search needs ripgrep \(the rg command\).*install the ripgrep package/)
  })
})

describe('search from code (S9.1)', () => {
  it('S9.1 tools.search with ^(a+)+$ in a run returns its value, and the run counts the call', { timeout: 120_000 }, async () => {
    fs.writeFileSync(ws.file('evil.txt'), `${'a'.repeat(40)}!\n`)
    const host = await createHost({ workspace: ws.workspace, journal: false })
    try {
      const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code: "return await tools.search({ pattern: '^(a+)+$' })", timeoutMs: 60_000 } }, { agent: 'agent-1' })
      expect(result.value).toMatchObject({ status: 'ok', value: { matchCount: 0, filesSearched: 1 }, toolCalls: 1 })
    } finally {
      await host.dispose()
    }
  })
})
