/**
 * The isolate worker is replaced after `recycleAfterRuns` runs (issue 12: memory flat; S9.1). Each
 * isolate leaves native memory behind in the process that made it, so a worker serving runs
 * without end would grow without end. The replacement starts while the old worker serves; runs go
 * to it once it is ready; the old worker finishes its runs and ends. A replacement that cannot
 * start leaves the old worker serving and is tried again later. The replacement's start is held
 * by a gate file (`gated-worker-entry.ts`), so each test decides when it is ready.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { childPids, isAlive } from '../helpers/process-alive.ts'
import { defaultDispatch } from './harness.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))
const RETURN_42 = { js: 'return 6 * 7', toolNames: [], dispatch: defaultDispatch }
/** A run that hits its 16 MB memory limit: the supervisor retires the worker that ran it. */
const MEMORY_BOMB = { js: 'const a = []; while (true) a.push(new Array(1e5).fill(1))', toolNames: [], dispatch: defaultDispatch, limits: { memoryMb: 16 } }
/** This process's workers started from the gated entry, live ones only. */
const workers = () => childPids('gated-worker-entry')

let folder: string
let gate: string
const supervisors: IsolateSupervisor[] = []

/** A supervisor whose workers start from the gated entry; the gate is open for the first one. */
async function startedSupervisor(recycleAfterRuns: number): Promise<{ supervisor: IsolateSupervisor; first: number }> {
  fs.writeFileSync(gate, '')
  const supervisor = new IsolateSupervisor({ poolSize: 1, entry: GATED_ENTRY, recycleAfterRuns })
  supervisors.push(supervisor)
  await supervisor.prewarm()
  fs.rmSync(gate)
  return { supervisor, first: supervisor.workerPid! }
}

beforeEach(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-recycle-'))
  gate = path.join(folder, 'open')
  vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
  vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
})

afterEach(() => {
  for (const supervisor of supervisors.splice(0)) supervisor.dispose()
  vi.unstubAllEnvs()
  fs.rmSync(folder, { recursive: true, force: true })
})

describe('IsolateSupervisor recycling (issue 12)', () => {
  it('S9.1 after recycleAfterRuns runs a replacement starts while the old worker keeps answering; runs go to the replacement once it is ready, and the old worker ends after its last run', async () => {
    const { supervisor, first } = await startedSupervisor(2)
    const order: string[] = []
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    expect(supervisor.replacementPid).toBeUndefined()
    // The second run is the worker's last before a replacement starts.
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    const second = supervisor.replacementPid
    expect(second).toBeGreaterThan(0)
    expect(second).not.toBe(first)
    // While the replacement is held at its gate, the old worker answers, a run holding a tool call included.
    let release!: (outcome: IsolateToolOutcome) => void
    const held = supervisor.run({
      js: 'const got = await tools.hold({}); return got.n',
      toolNames: ['hold'],
      dispatch: () => new Promise<IsolateToolOutcome>((resolve) => (release = resolve)),
    })
    // Bounded by the test's own timeout, not vitest's 1 s default (a loaded fresh-clone CI run missed it).
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: 30_000, interval: 20 })
    for (let index = 0; index < 3; index++) {
      expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
      order.push(`answered by ${supervisor.workerPid === first ? 'the old worker' : 'another'}`)
    }
    order.push('gate opened')
    fs.writeFileSync(gate, '')
    await vi.waitFor(() => expect(supervisor.workerPid).toBe(second), { timeout: 30_000, interval: 20 })
    order.push('replaced')
    expect(supervisor.replacementPid).toBeUndefined()
    // The old worker still serves the run it holds, then ends.
    expect(isAlive(first)).toBe(true)
    release({ ok: true, valueJson: '{"n":7}' })
    expect(await held).toMatchObject({ status: 'ok', value: 7 })
    await vi.waitFor(() => expect(isAlive(first)).toBe(false), { timeout: 10_000, interval: 20 })
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    expect(supervisor.workerPid).toBe(second)
    expect(order).toEqual(['answered by the old worker', 'answered by the old worker', 'answered by the old worker', 'gate opened', 'replaced'])
  }, 60_000)

  it('S9.1 a replacement that cannot start leaves the old worker serving, and is tried again after as many runs', async () => {
    const { supervisor, first } = await startedSupervisor(2)
    vi.stubEnv('PTC_TEST_GATED_ENTRY', path.join(folder, 'no-such-entry.ts'))
    fs.writeFileSync(gate, '')
    await supervisor.run(RETURN_42)
    // The second run starts the replacement as it is handed to the worker: read its pid then, as
    // on a loaded machine the replacement can fail before the run's answer comes back.
    const second = supervisor.run(RETURN_42)
    const failing = supervisor.replacementPid!
    expect(failing).toBeGreaterThan(0)
    await second
    await vi.waitFor(() => expect(supervisor.replacementPid).toBeUndefined(), { timeout: 30_000, interval: 20 })
    expect(isAlive(failing)).toBe(false)
    vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    expect(supervisor.workerPid).toBe(first)
    expect(supervisor.replacementPid).toBeUndefined()
    // Two runs later it is tried again, and this one starts.
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    const retried = supervisor.replacementPid!
    expect(retried).toBeGreaterThan(0)
    await vi.waitFor(() => expect(supervisor.workerPid).toBe(retried), { timeout: 30_000, interval: 20 })
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
  }, 60_000)

  it('S9.1 a replacement whose old worker was retired while it started (a memory run) takes its place, on a supervisor never prewarmed: no worker is left running unused', async () => {
    fs.writeFileSync(gate, '')
    const supervisor = new IsolateSupervisor({ poolSize: 1, entry: GATED_ENTRY, recycleAfterRuns: 2 })
    supervisors.push(supervisor)
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    const old = supervisor.workerPid!
    fs.rmSync(gate)
    // The worker's second run: a replacement starts (held at the gate) and the memory run retires the old worker.
    expect((await supervisor.run(MEMORY_BOMB)).status).toBe('memory')
    const next = supervisor.replacementPid!
    expect(next).toBeGreaterThan(0)
    fs.writeFileSync(gate, '')
    // Ready, it becomes the worker runs go to, by itself: no run has to come and start another.
    await vi.waitFor(() => expect(supervisor.workerPid).toBe(next), { timeout: 30_000, interval: 20 })
    await vi.waitFor(() => expect(isAlive(old)).toBe(false), { timeout: 10_000, interval: 20 })
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    expect(workers()).toEqual([next])
  }, 60_000)

  it('S9.1 a failed replacement is tried again although more runs than recycleAfterRuns were given while it failed', async () => {
    const { supervisor, first } = await startedSupervisor(2)
    vi.stubEnv('PTC_TEST_GATED_ENTRY', path.join(folder, 'no-such-entry.ts'))
    fs.writeFileSync(gate, '')
    const burst = await Promise.all(Array.from({ length: 6 }, () => supervisor.run(RETURN_42)))
    expect(burst.map((result) => result.status)).toEqual(Array(6).fill('ok'))
    await vi.waitFor(() => expect(supervisor.replacementPid).toBeUndefined(), { timeout: 30_000, interval: 20 })
    vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
    expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    await vi.waitFor(() => expect(supervisor.workerPid).not.toBe(first), { timeout: 30_000, interval: 20 })
  }, 60_000)

  it('S9.1 with long runs and recycleAfterRuns 1, at most one retired worker drains at a time', async () => {
    fs.writeFileSync(gate, '')
    const supervisor = new IsolateSupervisor({ poolSize: 1, entry: GATED_ENTRY, recycleAfterRuns: 1 })
    supervisors.push(supervisor)
    await supervisor.prewarm()
    let most = 0
    const sampler = setInterval(() => (most = Math.max(most, workers().length)), 5)
    const slow = (): Promise<IsolateToolOutcome> => new Promise((resolve) => setTimeout(() => resolve({ ok: true, valueJson: '{"n":7}' }), 1_200))
    const lane = async () => {
      const values: unknown[] = []
      for (let index = 0; index < 2; index++) values.push((await supervisor.run({ js: 'const got = await tools.slow({}); return got.n', toolNames: ['slow'], dispatch: slow })).value)
      return values
    }
    try {
      const lanes = await Promise.all(Array.from({ length: 8 }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 150))
        return lane()
      }))
      expect(lanes.flat()).toEqual(Array(16).fill(7))
    } finally {
      clearInterval(sampler)
    }
    // The worker serving, its replacement starting, and one retired worker finishing its runs.
    expect(most).toBeLessThanOrEqual(3)
    expect(most).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it('S9.1 recycleAfterRuns 0 never replaces the worker', async () => {
    const { supervisor, first } = await startedSupervisor(0)
    for (let index = 0; index < 4; index++) expect(await supervisor.run(RETURN_42)).toMatchObject({ status: 'ok', value: 42 })
    expect(supervisor.replacementPid).toBeUndefined()
    expect(supervisor.workerPid).toBe(first)
  }, 60_000)
})
