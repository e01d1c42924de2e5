/**
 * A `ptc run` starts the isolate worker before the host exists (issue 12: start-up) and the
 * host's supervisor adopts it (S9.1); a worker is niced only once it is ready, so its start is
 * not slowed on a busy machine while its runs still yield to the host. Order and outcome only.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { prestartRun, runMemoryMb } from '../../src/cli/prestart-run.ts'
import { isolateWorkerOptions, prestartIsolateWorker } from '../../src/ptc/isolate/worker-start.ts'
import { WORKER_NICENESS } from '../../src/ptc/worker-channel.ts'
import { defaultDispatch } from './harness.ts'
import { isAlive as alive } from '../helpers/process-alive.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))

describe('prestarted isolate worker (issue 12, S9.1)', { timeout: 120_000 }, () => {
  it.each([
    ['prestartIsolateWorker', () => prestartIsolateWorker({ poolSize: 1, memoryMb: 64 }), { poolSize: 1, memoryMb: 64 }],
    // `ptc run`'s bin script, from its command line (src/cli/prestart-run.ts); the host derives the same options.
    ['prestartRun (ptc run --memory-mb 64)', () => prestartRun(['script.ts', '--json', '--memory-mb', '64', '--tools', 'x.ts']), isolateWorkerOptions({ limits: { memoryMb: runMemoryMb('64') } })],
  ])('S9.1 a supervisor with the same options adopts the worker %s started: its first run is answered by that process', async (_name, prestart, options) => {
    const pid = prestart()
    expect(pid).toBeTypeOf('number')
    const supervisor = new IsolateSupervisor(options)
    try {
      const result = await supervisor.run({ js: 'return 6 * 7', toolNames: [], dispatch: defaultDispatch })
      expect(result).toMatchObject({ status: 'ok', value: 42 })
      expect(supervisor.workerPid).toBe(pid)
    } finally {
      supervisor.dispose()
    }
  })

  it('S9.1 a prestarted worker for other options is stopped, and the supervisor forks its own', async () => {
    const pid = prestartIsolateWorker({ poolSize: 1, memoryMb: 32 })!
    const supervisor = new IsolateSupervisor({ poolSize: 1, memoryMb: 64 })
    try {
      const result = await supervisor.run({ js: 'return 1', toolNames: [], dispatch: defaultDispatch })
      expect(result).toMatchObject({ status: 'ok', value: 1 })
      expect(supervisor.workerPid).not.toBe(pid)
      await expect.poll(() => alive(pid)).toBe(false)
    } finally {
      supervisor.dispose()
    }
  })

  it('S9.1 the isolate worker starts at the host\'s priority and runs niced below it once ready', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-gate-'))
    const gate = path.join(folder, 'open')
    vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
    vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
    const supervisor = new IsolateSupervisor({ poolSize: 1, entry: GATED_ENTRY })
    try {
      const ready = supervisor.prewarm()
      const pid = supervisor.workerPid!
      expect(os.getPriority(pid)).toBe(os.getPriority())
      fs.writeFileSync(gate, '')
      await ready
      expect(os.getPriority(pid)).toBe(Math.min(19, os.getPriority() + WORKER_NICENESS))
    } finally {
      vi.unstubAllEnvs()
      supervisor.dispose()
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  it('S9.1 a worker that is SIGKILLed after it was ready has left its modules in Node\'s compile cache', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compile-cache-'))
    vi.stubEnv('NODE_COMPILE_CACHE', cache)
    const supervisor = new IsolateSupervisor({ poolSize: 1 })
    try {
      await supervisor.prewarm()
      const pid = supervisor.workerPid!
      // Written by the worker after 'ready' (a normal exit would write it too; this one never exits normally).
      await expect.poll(() => fs.readdirSync(cache, { recursive: true }).filter((name) => fs.statSync(path.join(cache, String(name))).isFile()).length).toBeGreaterThan(0)
      supervisor.dispose()
      await expect.poll(() => alive(pid)).toBe(false)
    } finally {
      vi.unstubAllEnvs()
      supervisor.dispose()
      fs.rmSync(cache, { recursive: true, force: true })
    }
  })
})
