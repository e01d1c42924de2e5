/**
 * Start-up loads only what the work needs (issue 12: "createHost not loading TypeScript, esbuild
 * or isolated-vm until needed"): checked by the list of modules a fresh process resolves
 * (test/fixtures/record-module-loads.mjs), never by time. TypeScript belongs in the checker
 * workers, esbuild there too or, for an unchecked script, in the host once it compiles one that is
 * not plain JavaScript (its service does the work in a process of its own), isolated-vm in the isolate worker process (or,
 * `isolation: 'inline'`, in the host once a script runs), the MCP SDK and ajv in hosts that
 * import MCP servers.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PTC_BIN } from './ptc-cli.ts'

const FIXTURE = join(import.meta.dirname, '../fixtures/record-module-loads.mjs')
const INDEX = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href
const HEAVY = ['typescript', 'isolated-vm', 'esbuild', '@modelcontextprotocol/sdk', 'ajv']

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-lazy-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The dependencies (by package name) a fresh `node --no-node-snapshot` resolves running `source` (ESM). */
function packagesLoadedBy(source: string, env: Record<string, string> = {}): Promise<string[]> {
  return packagesLoadedByNode(['--no-node-snapshot', '--input-type=module', '-e', source], env)
}

/** The dependencies (by package name) the main thread of `node --import <recorder> ...args` resolves. */
function packagesLoadedByNode(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const record = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`)
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', FIXTURE, ...args], { cwd: dir, env: { ...process.env, ...env, PTC_RECORD_LOADS: record }, timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`))
      const urls = readFileSync(record, 'utf8').split('\n')
      // A package.json read for a version (the checker snapshot's key) loads no code.
      const packages = urls.filter((url) => !url.endsWith('/package.json')).flatMap((url) => {
        const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
        return match ? [match[1]!] : []
      })
      resolve([...new Set(packages)].sort())
    })
  })
}

const heavyOf = (packages: string[]) => packages.filter((name) => HEAVY.some((heavy) => name === heavy || name.startsWith(`${heavy}/`)))

/** The cache folder of the inline hosts below (not the user's): the first one's process builds the runtime bundle into it. */
const inlineCache = () => ({ PTC_CACHE_DIR: join(dir, 'cache') })
/**
 * An inline host's unchecked run in a fresh process, with {@link inlineCache}: the fourth test's
 * subject, and the earlier process that caches the runtime bundle for the fifth (one process for
 * both, started by whichever needs it first).
 */
let inlineRun: Promise<string[]> | undefined
const inlineUncheckedRun = () =>
  (inlineRun ??= packagesLoadedBy(
    `
      const { createHost } = await import(${JSON.stringify(INDEX)})
      const host = await createHost({ workspace: ${JSON.stringify(dir)}, journal: false, ptc: { isolation: 'inline' } })
      const result = await host.ctx.ptc.run('return 41 + 1', { typecheck: false })
      if (result.value !== 42) throw new Error(JSON.stringify(result))
      await host.dispose()`,
    inlineCache(),
  ))

describe('lazy loading (issue 12)', { timeout: 90_000 }, () => {
  it("import 'ptc-runner' loads neither TypeScript, esbuild, isolated-vm, the MCP SDK nor ajv", async () => {
    const loaded = await packagesLoadedBy(`await import(${JSON.stringify(INDEX)})`)
    expect(loaded).toContain('zod')
    expect(heavyOf(loaded)).toEqual([])
  })

  it('S9.1 a host with the worker process answers an unchecked plain JavaScript run loading none of them in its own process (no esbuild: plain-script.ts)', async () => {
    const loaded = await packagesLoadedBy(`
      const { createHost } = await import(${JSON.stringify(INDEX)})
      const host = await createHost({ workspace: ${JSON.stringify(dir)}, journal: false })
      const result = await host.ctx.ptc.run('return 41 + 1', { typecheck: false })
      if (result.value !== 42) throw new Error(JSON.stringify(result))
      await host.dispose()`)
    expect(loaded).toContain('cordis')
    expect(heavyOf(loaded)).toEqual([])
  })

  it('S9.1 ptc run, started without --no-node-snapshot, runs a script in one process that loads none of them', async () => {
    writeFileSync(join(dir, 'answer.ts'), 'return 6 * 7\n')
    const loaded = await packagesLoadedByNode([PTC_BIN, 'run', 'answer.ts', '--json', '--workspace', dir, '--journal', join(dir, 'journal.jsonl')])
    expect(loaded).toContain('zod')
    expect(heavyOf(loaded)).toEqual([])
  })

  it("S9.1 an inline host loads isolated-vm once a script runs, and still not TypeScript's compiler", async () => {
    const loaded = await inlineUncheckedRun()
    expect(loaded).toContain('isolated-vm')
    // esbuild may build the runtime bundle here (from the sources, when the cache has none).
    expect(heavyOf(loaded).filter((name) => name !== 'isolated-vm' && name !== 'esbuild')).toEqual([])
  })

  it("S9.1 with the runtime bundle cached by an earlier process, an inline host runs a checked TypeScript script loading esbuild (its checker threads' transforms) and isolated-vm, never TypeScript", async () => {
    // The earlier process: the inline host's unchecked run above, which left the runtime bundle in the cache.
    await inlineUncheckedRun()
    expect(readdirSync(join(dir, 'cache')).filter((name) => /^runtime-.*\.json$/.test(name))).toHaveLength(1)
    // Type-checked: the checker thread checks it and hands the transform to the host's esbuild
    // (check/host-transform.ts: esbuild in a thread would leave a zombie when the thread ends).
    // TypeScript syntax: a plain JavaScript script would compile without esbuild.
    const source = `
      const { createHost } = await import(${JSON.stringify(INDEX)})
      const host = await createHost({ workspace: ${JSON.stringify(dir)}, journal: false, ptc: { isolation: 'inline' } })
      const result = await host.ctx.ptc.run('const n: number = 41\\nreturn n + 1')
      if (result.value !== 42) throw new Error(JSON.stringify(result))
      await host.dispose()`
    expect(heavyOf(await packagesLoadedBy(source, inlineCache()))).toEqual(['esbuild', 'isolated-vm'])
  })
})
