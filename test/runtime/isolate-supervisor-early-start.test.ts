/**
 * `IsolateSupervisor.start()` (issue 12: `createHost` starts the isolate worker before its
 * plugins load, S9.1): the first run uses the worker it began; a start that fails before any
 * run waited for it is the first run's failure, with the error the run would have got starting
 * the worker itself, and the run after starts a new worker; disposing before any run leaves no
 * process behind. Order and outcome only.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { defaultDispatch } from './harness.ts'
import { isAlive as alive } from '../helpers/process-alive.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))

describe('IsolateSupervisor.start (issue 12, S9.1)', { timeout: 120_000 }, () => {
  it('S9.1 the first run is answered by the worker start() began', async () => {
    const supervisor = new IsolateSupervisor({ poolSize: 1 })
    try {
      supervisor.start()
      const pid = supervisor.workerPid
      expect(pid).toBeTypeOf('number')
      supervisor.start() // A second start while one runs does nothing.
      expect(supervisor.workerPid).toBe(pid)
      expect(await supervisor.run({ js: 'return 6 * 7', toolNames: [], dispatch: defaultDispatch })).toMatchObject({ status: 'ok', value: 42 })
      expect(supervisor.workerPid).toBe(pid)
    } finally {
      supervisor.dispose()
    }
  })

  it('S9.1 a start() that failed before any run is the first run\'s failure, with the error of a run that starts the worker itself; the next run starts a new worker', async () => {
    // An empty gate path: the gated entry throws at once, and Node prints the error on its stderr.
    vi.stubEnv('PTC_TEST_CHECKER_GATE', '')
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-early-'))
    const supervisor = new IsolateSupervisor({ poolSize: 1, entry: GATED_ENTRY })
    try {
      supervisor.start()
      const first = supervisor.workerPid!
      await expect.poll(() => supervisor.workerPid, { timeout: 60_000 }).toBeUndefined() // It has ended.
      // The gate is open from now on: a worker started now would start fine.
      const gate = path.join(folder, 'open')
      fs.writeFileSync(gate, '')
      vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
      vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
      await expect(supervisor.run({ js: 'return 1', toolNames: [], dispatch: defaultDispatch })).rejects.toThrow(
        /^the isolate worker process exited before it was ready \(exit code 1\)\. Its last stderr: .*gated-worker-entry needs PTC_TEST_CHECKER_GATE/,
      )
      expect(await supervisor.run({ js: 'return 2', toolNames: [], dispatch: defaultDispatch })).toMatchObject({ status: 'ok', value: 2 })
      expect(supervisor.workerPid).not.toBe(first)
    } finally {
      vi.unstubAllEnvs()
      supervisor.dispose()
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  it('S9.1 a supervisor disposed after start() and before any run leaves no worker process behind', async () => {
    const supervisor = new IsolateSupervisor({ poolSize: 1 })
    supervisor.start()
    const pid = supervisor.workerPid!
    expect(alive(pid)).toBe(true)
    supervisor.dispose()
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false)
  })
})
