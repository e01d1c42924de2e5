/**
 * The isolate worker's start on a loaded machine (issue 14, S9.1): only a generous safety limit
 * bounds it (`startTimeoutMs`, default 60 s), so a worker that starts slowly is waited for, not
 * killed; one that never becomes ready fails at that limit, and one that exits while starting
 * fails the run, each with a clear error and the tail of the worker's stderr.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { DEFAULT_START_TIMEOUT_MS } from '../../src/ptc/worker-channel.ts'
import { NEVER_READY_ENTRY, reachStartLimit } from '../helpers/never-ready-worker.ts'
import { defaultDispatch } from './harness.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))

describe('IsolateSupervisor start-up (issue 14)', () => {
  it('S9.1 a worker that starts far slower than any run deadline, but within the start limit, is not killed: the waiting run is answered by it', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-gate-'))
    const gate = path.join(folder, 'open')
    vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
    vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
    const supervisor = new IsolateSupervisor({ entry: GATED_ENTRY })
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
      const order: string[] = []
      const pending = supervisor.run({ js: 'return 6 * 7', toolNames: [], dispatch: defaultDispatch }).finally(() => order.push('answered'))
      const starting = supervisor.workerPid
      // All but a second of the default start limit passes on every timer the supervisor set while the worker is still starting.
      vi.advanceTimersByTime(DEFAULT_START_TIMEOUT_MS - 1_000)
      vi.useRealTimers()
      order.push('gate opened')
      fs.writeFileSync(gate, '')
      expect(await pending).toMatchObject({ status: 'ok', value: 42 })
      expect(order).toEqual(['gate opened', 'answered'])
      expect(supervisor.workerPid).toBe(starting)
    } finally {
      vi.useRealTimers()
      vi.unstubAllEnvs()
      supervisor.dispose()
      fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)

  it('S9.1 a worker that never becomes ready is killed at the configured start limit, and the run fails saying so with its stderr', async () => {
    const supervisor = new IsolateSupervisor({ entry: NEVER_READY_ENTRY, startTimeoutMs: 300 })
    try {
      const { outcome } = await reachStartLimit(300, () => supervisor.run({ js: 'return 1', toolNames: [], dispatch: defaultDispatch, limits: { wallClockMs: 600_000 } }))
      await expect(outcome).rejects.toThrow(
        /^the isolate worker process was stopped: it was not ready within 300 ms, the start limit set by PtcConfig\.startTimeoutMs\. Its last stderr: never-ready: waiting forever$/,
      )
      expect(supervisor.workerPid).toBeUndefined()
    } finally {
      supervisor.dispose()
    }
  }, 60_000)

  it('S9.1 a worker that exits before it is ready fails the run with the tail of its stderr in the message', async () => {
    // An empty gate path: the gated entry throws at once, and Node prints the error on its stderr.
    vi.stubEnv('PTC_TEST_CHECKER_GATE', '')
    const supervisor = new IsolateSupervisor({ entry: GATED_ENTRY })
    try {
      await expect(supervisor.run({ js: 'return 1', toolNames: [], dispatch: defaultDispatch })).rejects.toThrow(
        /^the isolate worker process exited before it was ready \(exit code 1\)\. Its last stderr: .*gated-worker-entry needs PTC_TEST_CHECKER_GATE/,
      )
    } finally {
      vi.unstubAllEnvs()
      supervisor.dispose()
    }
  }, 60_000)
})
