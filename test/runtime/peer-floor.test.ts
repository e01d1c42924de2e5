/**
 * The floors of issue 12's harness rows as harness peers (`bench/peer-floor.ts`,
 * `bench/peers/`): a real `run_code` whose isolate step is raw isolated-vm, each call from the
 * script through the run's pipeline (S3-S6), in this process and in a worker process; and the
 * script that adds those peers to a copy of the harness.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFloorRunner, type HarnessTools } from '../../bench/peer-floor.ts'
// @ts-expect-error: a plain ES module of the harness's kind, without declarations
import { FLOOR_PEERS, installFloorPeers } from '../../bench/peers/install.mjs'

const tools: HarnessTools = {
  noop: async (args: { i?: number }) => ({ i: args?.i ?? null }),
  fail: async () => {
    throw new Error('boom')
  },
}
const SEQUENTIAL = 'let s = 0; for (let i = 0; i < 20; i++) { const r = await tools.noop({ i }); s += r.i } return s'
const FAILING = 'try { await tools.fail({}) } catch (e) { return "caught:" + e.message }'

const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

describe.each(['inline', 'process'] as const)('the %s floor (issue 12)', (isolation) => {
  it('runs the script in raw isolated-vm and passes every call through the run_code pipeline (S3.1, S9.2)', async () => {
    const floor = await createFloorRunner(tools, isolation)
    try {
      const seen: string[] = []
      floor.host.ctx.on('tools/pre-execute', (execution, next) => {
        seen.push(execution.name)
        return next()
      })
      // Raw isolated-vm's own global, which the product's runtime does not have: the isolate step was replaced.
      expect(await floor.run(`return typeof ${isolation === 'inline' ? '__hostCall' : '__call'}`)).toEqual({ value: 'object' })
      seen.length = 0
      expect(await floor.run(SEQUENTIAL)).toEqual({ value: 190 })
      expect(seen).toEqual(['run_code', ...Array.from({ length: 20 }, () => 'noop')])
      // A tool's failure reaches the script as the pipeline words it, not as the raw error.
      expect(await floor.run(FAILING)).toEqual({ value: 'caught:Tool "fail" failed: boom' })
      // A script that throws is a failed run, answered, not a rejection.
      expect((await floor.run('throw new Error("bad script")')).error).toMatch(/^error: .*bad script/)
    } finally {
      await floor.close()
    }
  })
})

describe('installing the floor peers into a copy of the harness', () => {
  function fakeHarness(): string {
    const folder = mkdtempSync(path.join(tmpdir(), 'ptc-harness-'))
    folders.push(folder)
    mkdirSync(path.join(folder, 'adapters'))
    writeFileSync(path.join(folder, 'run.mjs'), "import x from 'y';\nexport const ALL_PEERS = ['isolated-vm-raw', 'ours'];\nconsole.log(ALL_PEERS);\n")
    return folder
  }

  it('copies the adapters and adds their names once, however often it runs', () => {
    const harness = fakeHarness()
    expect(installFloorPeers(harness)).toEqual(FLOOR_PEERS)
    expect(installFloorPeers(harness)).toEqual([])
    expect(readFileSync(path.join(harness, 'run.mjs'), 'utf8')).toBe("import x from 'y';\nexport const ALL_PEERS = ['isolated-vm-raw', 'ours', 'ours-floor', 'ours-floor-inline'];\nconsole.log(ALL_PEERS);\n")
    expect(readdirSync(path.join(harness, 'adapters')).sort()).toEqual(['ours-floor-inline.mjs', 'ours-floor.mjs'])
  })

  it('keeps the peers already listed, in either kind of quotes, and the mode of run.mjs', () => {
    const harness = fakeHarness()
    writeFileSync(path.join(harness, 'run.mjs'), 'export const ALL_PEERS = ["floor-direct", \'ours\'];\n')
    chmodSync(path.join(harness, 'run.mjs'), 0o640)
    installFloorPeers(harness)
    expect(readFileSync(path.join(harness, 'run.mjs'), 'utf8')).toBe("export const ALL_PEERS = ['floor-direct', 'ours', 'ours-floor', 'ours-floor-inline'];\n")
    expect(statSync(path.join(harness, 'run.mjs')).mode & 0o777).toBe(0o640)
  })

  it('refuses a read-only harness (the shared original), saying to copy it, and changes nothing, even for root', () => {
    const harness = fakeHarness()
    const before = readFileSync(path.join(harness, 'run.mjs'), 'utf8')
    chmodSync(path.join(harness, 'run.mjs'), 0o444)
    expect(() => installFloorPeers(harness)).toThrow(/is read-only.*copy it to a writable place first/)
    expect(readFileSync(path.join(harness, 'run.mjs'), 'utf8')).toBe(before)
    expect(readdirSync(path.join(harness, 'adapters'))).toEqual([])
  })

  it('refuses a folder that is not the harness, saying what to copy, and changes nothing', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'ptc-not-harness-'))
    folders.push(folder)
    expect(() => installFloorPeers(folder)).toThrow(/not a copy of the peer harness.*copy \.\.\/shared\/bench-peers first/)
    expect(readdirSync(folder)).toEqual([])
    const noList = fakeHarness()
    writeFileSync(path.join(noList, 'run.mjs'), 'export const PEERS = []\n')
    expect(() => installFloorPeers(noList)).toThrow(/no "export const ALL_PEERS/)
    writeFileSync(path.join(noList, 'run.mjs'), 'export const ALL_PEERS = [PEER_A, PEER_B];\n')
    expect(() => installFloorPeers(noList)).toThrow(/no quoted names that this script can read; add ours-floor, ours-floor-inline to it by hand/)
    expect(readdirSync(path.join(noList, 'adapters'))).toEqual([])
  })
})
