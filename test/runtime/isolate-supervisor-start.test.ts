/**
 * The isolate worker's start on a loaded machine (issue 14, S9.1): it has no wall-clock limit, so
 * a worker that starts slowly is waited for, not killed; a worker that exits while starting fails
 * the run with a clear error (isolate-supervisor.test.ts).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { defaultDispatch } from './harness.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))

describe('IsolateSupervisor start-up (issue 14)', () => {
  it('S9.1 a worker that takes longer to start than any clock could allow is not killed: the waiting run is answered by it', async () => {
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
      // A day passes on every timer the supervisor could have set while the worker is still starting.
      vi.advanceTimersByTime(24 * 3_600_000)
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
})
