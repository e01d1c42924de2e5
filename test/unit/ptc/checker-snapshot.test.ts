/**
 * The checker's start-up snapshot (issue 12: the type-check's cold start): built in the background
 * into the user cache folder, used only while its manifest matches this Node, TypeScript and the
 * current sources, and never a reason for a check to fail (a corrupt blob is replaced by the
 * module entry). Each test uses its own cache folder (`PTC_CACHE_DIR`).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { CheckerPool } from '../../../src/ptc/check/checker-pool.ts'
import { type CheckerSnapshotManifest, fileSha256, findCheckerSnapshot, isOwnSource, KEPT_SNAPSHOTS, PACKAGE_ROOT, pruneSnapshots, SNAPSHOT_FORMAT, snapshotKey, verifiedSnapshot } from '../../../src/ptc/check/checker-snapshot.ts'

const DECLARATIONS = 'declare const tools: { echo(args: { text: string }): Promise<{ text: string }> }\n'
const TYPE_ERROR = 'await tools.echo({ text: 1 })'
const folders: string[] = []
const previousCacheDir = process.env.PTC_CACHE_DIR

function cacheFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ptc-cache-'))
  folders.push(folder)
  return folder
}

afterEach(() => {
  if (previousCacheDir === undefined) delete process.env.PTC_CACHE_DIR
  else process.env.PTC_CACHE_DIR = previousCacheDir
})
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

/** A manifest as the build writes it, for a fake blob and one input file this test controls. */
function fakeSnapshot(folder: string): { blob: string; input: string; manifest: CheckerSnapshotManifest } {
  const key = snapshotKey()
  const input = join(folder, 'input.ts')
  writeFileSync(input, 'export const x = 1\n')
  const blob = join(folder, `${key.name}.blob`)
  writeFileSync(blob, 'not really a snapshot')
  const manifest: CheckerSnapshotManifest = { format: SNAPSHOT_FORMAT, node: key.node, arch: key.arch, typescript: key.typescript, blob: `${key.name}.blob`, blobBytes: 21, inputs: { [input]: fileSha256(input) } }
  writeFileSync(join(folder, `${key.name}.json`), JSON.stringify(manifest))
  return { blob, input, manifest }
}

/** Kills the background snapshot builds for `folder` (their command lines name it); returns how many there were. */
function stopBuilds(folder: string): number {
  let stopped = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(folder)) continue
      process.kill(Number(pid), 'SIGKILL')
      stopped++
    } catch {} // Gone meanwhile.
  }
  return stopped
}

describe('checker snapshot cache (issue 12)', () => {
  it('a manifest matching this Node, TypeScript, the sources and the blob size names the blob', () => {
    const folder = cacheFolder()
    const { blob } = fakeSnapshot(folder)
    expect(verifiedSnapshot(folder)).toBe(blob)
  })

  it('a changed source file, another Node or TypeScript version, or a blob of another size invalidate it', () => {
    const folder = cacheFolder()
    const { input, manifest } = fakeSnapshot(folder)
    const manifestFile = join(folder, `${snapshotKey().name}.json`)
    writeFileSync(input, 'export const x = 2\n')
    expect(verifiedSnapshot(folder)).toBeUndefined()
    writeFileSync(input, 'export const x = 1\n')
    expect(verifiedSnapshot(folder)).toBeDefined()
    for (const changed of [{ node: 'v23.0.0' }, { typescript: '5.0.0' }, { blobBytes: 20 }, { format: SNAPSHOT_FORMAT + 1 }, { inputs: {} }, { blob: '../elsewhere.blob' }]) {
      writeFileSync(manifestFile, JSON.stringify({ ...manifest, ...changed }))
      expect(verifiedSnapshot(folder)).toBeUndefined()
    }
  })

  it('the package\'s own files are hashed wherever the package lives, an installed one under node_modules included; its dependencies are not', () => {
    const installed = '/app/node_modules/ptc-runner'
    expect(isOwnSource('/app/node_modules/ptc-runner/dist/src/ptc/type-checker.js', installed)).toBe(true)
    expect(isOwnSource('/app/node_modules/ptc-runner/node_modules/typescript/lib/typescript.js', installed)).toBe(false)
    expect(isOwnSource('/app/node_modules/typescript/lib/typescript.js', installed)).toBe(false)
    expect(isOwnSource('/app/node_modules/ptc-runner-other/x.js', installed)).toBe(false)
    expect(isOwnSource('/repo/src/ptc/type-checker.ts', '/repo')).toBe(true)
    expect(isOwnSource('/repo/node_modules/zod/index.js', '/repo')).toBe(false)
    expect(PACKAGE_ROOT).toBe(join(import.meta.dirname, '../../..'))
  })

  it('a corrupt or half-written manifest is ignored, not an error', () => {
    const folder = cacheFolder()
    fakeSnapshot(folder)
    const manifestFile = join(folder, `${snapshotKey().name}.json`)
    writeFileSync(manifestFile, readFileSync(manifestFile, 'utf8').slice(0, 40))
    expect(verifiedSnapshot(folder)).toBeUndefined()
    writeFileSync(manifestFile, 'null')
    expect(verifiedSnapshot(folder)).toBeUndefined()
  })

  it('pruning keeps the most recently used snapshots, and drops blobs orphaned longer than a build takes', () => {
    const folder = cacheFolder()
    const names = Array.from({ length: KEPT_SNAPSHOTS + 2 }, (_, index) => `checker-${String(index).padStart(16, '0')}`)
    names.forEach((name, index) => {
      for (const file of [`${name}.json`, `${name}.blob`]) {
        writeFileSync(join(folder, file), '{}')
        const used = new Date(Date.now() - (index + 1) * 60_000)
        utimesSync(join(folder, file), used, used)
      }
    })
    const hourAgo = new Date(Date.now() - 3_600_000)
    writeFileSync(join(folder, 'checker-aaaaaaaaaaaaaaaa.blob'), 'orphan')
    utimesSync(join(folder, 'checker-aaaaaaaaaaaaaaaa.blob'), hourAgo, hourAgo)
    writeFileSync(join(folder, 'checker-bbbbbbbbbbbbbbbb.blob'), 'being published')
    writeFileSync(join(folder, 'runtime-0000000000000000.json'), '{}')
    pruneSnapshots(folder)
    const kept = names.slice(0, KEPT_SNAPSHOTS).flatMap((name) => [`${name}.blob`, `${name}.json`])
    expect(readdirSync(folder).sort()).toEqual([...kept, 'checker-bbbbbbbbbbbbbbbb.blob', 'runtime-0000000000000000.json'].sort())
  })

  it('S9.1 a checker whose snapshot blob is corrupt is replaced by one from the module entry, and the blob is reported', async () => {
    const folder = cacheFolder()
    const corrupt = join(folder, 'corrupt.blob')
    writeFileSync(corrupt, 'garbage, not a V8 snapshot')
    const failed: string[] = []
    const pool = new CheckerPool({ kind: 'process', size: 1, snapshot: () => corrupt, snapshotFailed: (blob) => failed.push(blob) })
    try {
      const { outcome } = await pool.prepare({ code: TYPE_ERROR, typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 60_000 })
      expect(outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'type-error', diagnostics: [{ line: 1, code: 2322 }] } })
      expect(failed).toEqual([corrupt])
    } finally {
      pool.dispose()
    }
  }, 90_000)

  it('S9.1 a checker from a working blob that the pool stops at its start limit does not get the blob discarded', async () => {
    // A real, tiny snapshot whose main never says ready: the start limit kills it (SIGKILL).
    // Only a checker that ends on its own before ready blames its blob (the test above).
    const folder = cacheFolder()
    const blob = join(folder, 'silent.blob')
    writeFileSync(join(folder, 'silent.cjs'), "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => setInterval(() => {}, 1000))\n")
    const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', join(folder, 'silent.cjs')], { timeout: 60_000 })
    expect(built.status).toBe(0)
    const failed: string[] = []
    const pool = new CheckerPool({ kind: 'process', size: 1, startTimeoutMs: 300, snapshot: () => blob, snapshotFailed: (path) => failed.push(path) })
    try {
      await expect(pool.prepare({ code: TYPE_ERROR, typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 60_000 })).rejects.toThrow(/could not start \(it was not ready within 300 ms/)
      expect(failed).toEqual([])
    } finally {
      pool.dispose()
    }
  }, 90_000)

  it('S9.1 a process that already started a build for one cache folder still starts one for another (vitest reuses forks)', () => {
    const first = cacheFolder()
    const second = cacheFolder()
    process.env.PTC_CACHE_DIR = first
    expect(findCheckerSnapshot()).toBeUndefined()
    expect(existsSync(join(first, `${snapshotKey().name}.building`))).toBe(true)
    process.env.PTC_CACHE_DIR = second
    expect(findCheckerSnapshot()).toBeUndefined()
    expect(existsSync(join(second, `${snapshotKey().name}.building`))).toBe(true)
    // Both builds started; finishing them (about 5 s of CPU each) is the next test's subject.
    expect(stopBuilds(first)).toBeGreaterThan(0)
    expect(stopBuilds(second)).toBeGreaterThan(0)
  })

  it('S9.1 with none cached, one is built in the background; checkers started from it find the same errors', async () => {
    const folder = cacheFolder()
    process.env.PTC_CACHE_DIR = folder
    expect(findCheckerSnapshot()).toBeUndefined()
    // The detached build publishes the manifest last, blob first: poll for a verified pair.
    let blob: string | undefined
    for (let waited = 0; blob === undefined && waited < 240_000; waited += 500) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      blob = verifiedSnapshot(folder)
    }
    expect(blob).toBeDefined()
    expect(existsSync(join(folder, `${snapshotKey().name}.building`))).toBe(false)
    const { inputs } = JSON.parse(readFileSync(join(folder, `${snapshotKey().name}.json`), 'utf8')) as CheckerSnapshotManifest
    expect(Object.keys(inputs)).toContain(join(PACKAGE_ROOT, 'src/ptc/type-checker.ts'))
    const pool = new CheckerPool({ kind: 'process', size: 1, snapshot: () => blob })
    try {
      const { outcome } = await pool.prepare({ code: TYPE_ERROR, typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 60_000 })
      expect(outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'type-error', diagnostics: [{ line: 1, code: 2322, category: 'error' }] } })
      const [pid] = pool.checkerIds
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(blob)
      const ok = await pool.prepare({ code: 'const r = await tools.echo({ text: "hi" }); return r.text', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 60_000 })
      expect(ok.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
    } finally {
      pool.dispose()
    }
  }, 300_000)
})
