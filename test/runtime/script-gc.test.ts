/**
 * No script gets V8's `gc` (SPEC S9.1; README, "What a script can use"), although the isolate
 * worker collects its own heap every FULL_GC_EVERY_RUNS runs (issue 12: memory). A `gc` in a
 * script's context let it spend GC threads' CPU outside its own CPU limit (round 14's review).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'

const PROBE = fileURLToPath(new URL('../fixtures/gc-probe.ts', import.meta.url))

function probe(flags: string[], mode: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, PROBE, mode], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`))
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>)
    })
  })
}

describe('S9.1 no script gets gc', () => {
  const supervisor = new IsolateSupervisor({ poolSize: 1 })
  afterAll(() => supervisor.dispose())

  it('S9.1 a script in the isolate worker sees no gc', async () => {
    const result = await supervisor.run({ js: 'return [typeof gc, Object.keys(globalThis).includes("gc")]', toolNames: [], dispatch: async () => ({ ok: false, message: 'no tools' }) })
    expect(result.value).toEqual(['undefined', false])
  })

  it("S9.1 takeWorkerGc gives the worker a collector, and neither its global nor any context made afterwards one (vm's, isolated-vm's)", async () => {
    expect(await probe(['--no-node-snapshot'], 'worker')).toEqual({ collected: true, global: 'undefined', vmContext: 'undefined', inIsolate: 'undefined' })
  })

  it('S9.1 inline, in a host process started with --expose-gc, a script gets no usable gc', async () => {
    const seen = await probe(['--no-node-snapshot', '--expose-gc'], 'inline')
    expect(seen.global).toBe('function') // the host's own, as its owner asked
    expect((seen.result as { status: string; value: unknown }).value).toEqual(['undefined', 'undefined'])
  })
})
