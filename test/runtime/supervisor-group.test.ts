/**
 * Runs spread over several isolate worker processes (IsolateSupervisorGroup, SPEC S9.1, issue 12):
 * one run starts one worker, runs that overlap or the second run start the rest, runs in flight
 * go to different workers, and a worker that dies costs only its own runs while the others keep serving.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { IsolateRunRequest, IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { DEFAULT_SPREAD_FROM_RUN, firstRecycleAfterRuns, IsolateSupervisorGroup, STICK_AFTER_MS, staysWithLast } from '../../src/ptc/isolate/supervisor-group.ts'
import { isAlive } from '../helpers/process-alive.ts'
import { until } from './harness.ts'

const GATED_ENTRY = fileURLToPath(new URL('../fixtures/gated-worker-entry.ts', import.meta.url))
const WORKER_ENTRY = fileURLToPath(new URL('../../src/ptc/isolate/isolate-worker-entry.ts', import.meta.url))

const groups: IsolateSupervisorGroup[] = []
afterEach(() => {
  for (const group of groups.splice(0)) group.dispose()
})

/** A group whose second run starts its later workers (the default, tested below). */
function group(workers?: number, spreadFromRun = 2): IsolateSupervisorGroup {
  const made = new IsolateSupervisorGroup({ poolSize: 1, graceMs: 500, spreadFromRun, ...(workers !== undefined && { workers }) })
  groups.push(made)
  return made
}

/** Two runs (the second starts the second worker), then both workers ready. */
async function bothReady(two: IsolateSupervisorGroup): Promise<IsolateSupervisorGroup> {
  await two.run(request('return 0'))
  await two.run(request('return 0'))
  await until(() => two.readyWorkers === 2, 30_000)
  return two
}

const request = (js: string, dispatch: IsolateRunRequest['dispatch'] = async () => ({ ok: true, valueJson: 'null' })): IsolateRunRequest => ({ js, toolNames: ['wait'], dispatch })

describe('IsolateSupervisorGroup (S9.1, issue 12)', () => {
  it("S9.1 the group staggers its workers' first replacements, none sooner than recycleAfterRuns; 0 stays never", () => {
    expect([0, 1].map((index) => firstRecycleAfterRuns(5_000, index, 2))).toEqual([5_000, 7_500])
    expect([0, 1, 2].map((index) => firstRecycleAfterRuns(3, index, 3))).toEqual([3, 4, 5])
    expect([0, 1].map((index) => firstRecycleAfterRuns(0, index, 2))).toEqual([0, 0])
  })

  it(`S9.1 back-to-back runs keep one worker until run ${DEFAULT_SPREAD_FROM_RUN}, which starts the second`, async () => {
    const two = group(undefined, DEFAULT_SPREAD_FROM_RUN)
    for (let run = 1; run < DEFAULT_SPREAD_FROM_RUN; run++) {
      expect(await two.run(request(`return ${run}`))).toMatchObject({ status: 'ok', value: run })
      expect(two.workerPids).toHaveLength(1)
    }
    expect(await two.run(request('return 10'))).toMatchObject({ status: 'ok', value: 10 })
    await until(() => two.workerPids.length === 2, 30_000)
    expect(new Set(two.workerPids).size).toBe(2)
  }, 60_000)

  it('S9.1 a run that arrives while the first worker holds one starts the second at once', async () => {
    const two = group(undefined, DEFAULT_SPREAD_FROM_RUN)
    const waiting: ((outcome: IsolateToolOutcome) => void)[] = []
    const first = two.run(request('return await tools.wait({})', () => new Promise<IsolateToolOutcome>((resolve) => waiting.push(resolve))))
    await until(() => waiting.length === 1, 30_000)
    expect(two.workerPids).toHaveLength(1)
    const second = two.run(request('return 2'))
    await until(() => two.workerPids.length === 2, 30_000)
    waiting[0]!({ ok: true, valueJson: '1' })
    expect(await Promise.all([first, second])).toMatchObject([{ status: 'ok', value: 1 }, { status: 'ok', value: 2 }])
  }, 60_000)

  it(`S9.1 a run stays with the worker that served the last one after a long run or a pause (${STICK_AFTER_MS} ms), and takes turns after a short one`, () => {
    expect(staysWithLast({ lastRunMs: undefined, lastEndAt: undefined }, 1_000)).toBe(true)
    expect(staysWithLast({ lastRunMs: STICK_AFTER_MS, lastEndAt: 1_000 }, 1_000)).toBe(true)
    expect(staysWithLast({ lastRunMs: 4, lastEndAt: 1_000 }, 1_000 + STICK_AFTER_MS)).toBe(true)
    expect(staysWithLast({ lastRunMs: 4, lastEndAt: 1_000 }, 1_001)).toBe(false)
  })

  it('S9.1 long runs one after another stay on one worker, as do short ones after pauses; runs in flight together are spread', async () => {
    const two = await bothReady(group())
    const before = two.runsByWorker
    const busy = `const until = Date.now() + ${STICK_AFTER_MS + 10}\nwhile (Date.now() < until) {}\nreturn 1`
    for (let run = 0; run < 4; run++) expect(await two.run(request(busy))).toMatchObject({ status: 'ok', value: 1 })
    for (let run = 0; run < 3; run++) {
      await new Promise((resolve) => setTimeout(resolve, STICK_AFTER_MS * 3))
      expect(await two.run(request('return 2'))).toMatchObject({ status: 'ok', value: 2 })
    }
    const added = two.runsByWorker.map((count, index) => count - before[index]!)
    expect([...added].sort()).toEqual([0, 7])
    // Two at once: one each.
    const waiting: ((outcome: IsolateToolOutcome) => void)[] = []
    const dispatch = () => new Promise<IsolateToolOutcome>((resolve) => waiting.push(resolve))
    const pair = [two.run(request('return await tools.wait({})', dispatch)), two.run(request('return await tools.wait({})', dispatch))]
    expect(two.runsByWorker.map((count, index) => count - before[index]! - added[index]!)).toEqual([1, 1])
    await until(() => waiting.length === 2, 30_000)
    for (const answer of waiting) answer({ ok: true, valueJson: '1' })
    expect(await Promise.all(pair)).toMatchObject([{ status: 'ok' }, { status: 'ok' }])
  }, 60_000)

  it('S9.1 after runs that overlapped, the next run stays with the worker whose long run ended last, not the last chosen', async () => {
    const two = await bothReady(group())
    const waiting: ((outcome: IsolateToolOutcome) => void)[] = []
    const before = two.runsByWorker
    const long = two.run(request('return await tools.wait({})', () => new Promise<IsolateToolOutcome>((resolve) => waiting.push(resolve))))
    const longOn = two.runsByWorker.findIndex((count, index) => count > before[index]!)
    expect(await two.run(request('return 2'))).toMatchObject({ status: 'ok', value: 2 }) // the other worker, chosen last
    await until(() => waiting.length === 1, 30_000)
    await new Promise((resolve) => setTimeout(resolve, STICK_AFTER_MS * 3))
    waiting[0]!({ ok: true, valueJson: '1' })
    expect(await long).toMatchObject({ status: 'ok', value: 1 })
    const after = two.runsByWorker
    expect(await two.run(request('return 3'))).toMatchObject({ status: 'ok', value: 3 })
    expect(two.runsByWorker[longOn]).toBe(after[longOn]! + 1)
  }, 60_000)

  it('S9.1 runs in flight together go to different workers, and a killed worker ends only its own run', async () => {
    const two = group()
    await two.prewarm()
    await two.run(request('return 0'))
    await two.run(request('return 0')) // the second run starts the second worker
    // A run goes only to a ready worker.
    await until(() => two.readyWorkers === 2, 30_000)
    const waiting: ((outcome: IsolateToolOutcome) => void)[] = []
    const dispatch = () => new Promise<IsolateToolOutcome>((resolve) => waiting.push(resolve))
    const first = two.run(request('return await tools.wait({})', dispatch))
    const second = two.run(request('return await tools.wait({})', dispatch))
    await until(() => waiting.length === 2, 30_000)
    process.kill(two.workerPid!, 'SIGKILL')
    for (const answer of waiting) answer({ ok: true, valueJson: '"answered"' })
    const results = await Promise.all([first, second])
    expect(results.map((result) => result.status).sort()).toEqual(['error', 'ok'])
    expect(results.find((result) => result.status === 'ok')).toMatchObject({ value: 'answered' })
    // The survivor serves the next run at once, while the killed one is replaced.
    expect(await two.run(request('return 3'))).toMatchObject({ status: 'ok', value: 3 })
  }, 60_000)

  it('S9.1 a worker killed between runs, the first or a later one, is replaced with the next run', async () => {
    const two = await bothReady(group())
    for (const victim of [0, 1]) {
      const pid = two.workerPids[victim]!
      process.kill(pid, 'SIGKILL')
      await until(() => !two.workerPids.includes(pid), 30_000)
      expect(await two.run(request('return 6'))).toMatchObject({ status: 'ok', value: 6 })
      await until(() => two.readyWorkers === 2, 30_000)
      expect(two.workerPids).not.toContain(pid)
    }
  }, 90_000)

  it('S9.1 with no worker ready, a run and prewarm wait for whichever starting worker is ready first', async () => {
    const two = await bothReady(group())
    for (const pid of two.workerPids) process.kill(pid, 'SIGKILL')
    await until(() => two.workerPids.length === 0, 30_000)
    const run = two.run(request('return 42')) // starts both again
    process.kill(two.workerPid!, 'SIGSTOP') // the first one's start never ends (until its 60 s limit)
    await two.prewarm()
    expect(await run).toMatchObject({ status: 'ok', value: 42 })
  }, 30_000)

  it('S9.1 a supervisor replaces its first worker after firstRecycleAfterRuns, its successors after recycleAfterRuns', async () => {
    const supervisor = new IsolateSupervisor({ poolSize: 1, recycleAfterRuns: 4, firstRecycleAfterRuns: 2 })
    try {
      await supervisor.run(request('return 1'))
      const first = supervisor.workerPid!
      expect(supervisor.replacementPid).toBeUndefined()
      const second = supervisor.run(request('return 2')) // the first worker's second run starts its replacement
      const replacement = supervisor.replacementPid
      expect(replacement).toBeGreaterThan(0)
      await second
      await until(() => supervisor.workerPid === replacement, 30_000)
      // One retired worker drains at a time: the next replacement waits until the first has gone.
      await until(() => !isAlive(first), 30_000)
      for (let run = 1; run <= 3; run++) {
        await supervisor.run(request('return 3'))
        expect(supervisor.replacementPid).toBeUndefined()
      }
      const fourth = supervisor.run(request('return 4')) // the successor is replaced after recycleAfterRuns (4)
      expect(supervisor.replacementPid).toBeGreaterThan(0)
      await fourth
    } finally {
      supervisor.dispose()
    }
  }, 60_000)

  it('S9.1 with workers: 1 every run goes to the one worker', async () => {
    const one = group(1)
    for (let run = 0; run < 3; run++) expect(await one.run(request(`return ${run}`))).toMatchObject({ status: 'ok', value: run })
    expect(one.workerPids).toHaveLength(1)
  }, 60_000)

  it('S9.1 refuses a worker count that is not a whole number of at least 1', () => {
    expect(() => new IsolateSupervisorGroup({ workers: 0 })).toThrow(/workers must be an integer from 1 to 16, got 0/)
    expect(() => new IsolateSupervisorGroup({ workers: 1.5 })).toThrow(RangeError)
  })

  it('S9.1 with the first worker dead and its replacement not starting, prewarm and runs go to the ready second one', async () => {
    await withGate(async (gate) => {
      const two = new IsolateSupervisorGroup({ poolSize: 1, graceMs: 500, spreadFromRun: 2, entry: GATED_ENTRY })
      groups.push(two)
      await bothReady(two)
      const [first, second] = two.workerPids
      fs.rmSync(gate) // from now on a worker that starts waits at the gate: the first one's replacement never gets ready
      process.kill(first!, 'SIGKILL')
      await until(() => !two.workerPids.includes(first!), 30_000)
      await two.prewarm()
      expect(await two.run(request('return 5'))).toMatchObject({ status: 'ok', value: 5 })
      expect(two.workerPids).toContain(second)
    })
  }, 60_000)

  it('S9.1 a later worker whose start failed is started again a hundred runs later', async () => {
    await withGate(async (gate, folder) => {
      const two = new IsolateSupervisorGroup({ poolSize: 1, graceMs: 500, spreadFromRun: 2, entry: GATED_ENTRY })
      groups.push(two)
      await two.run(request('return 1'))
      vi.stubEnv('PTC_TEST_GATED_ENTRY', path.join(folder, 'no-such-entry.ts')) // the second worker's start fails
      await two.run(request('return 2'))
      await until(() => two.workerPids.length === 1 && two.readyWorkers === 1, 30_000)
      vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
      for (let run = 0; run < 99; run++) expect(await two.run(request('return 3'))).toMatchObject({ status: 'ok' })
      expect(two.workerPids).toHaveLength(1) // not retried on every run
      await two.run(request('return 4'))
      await until(() => two.readyWorkers === 2, 30_000)
      expect(fs.existsSync(gate)).toBe(true)
    })
  }, 120_000)
})

/** Runs `body` with workers started from the gated entry (`test/fixtures/gated-worker-entry.ts`), the gate open. */
async function withGate(body: (gate: string, folder: string) => Promise<void>): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-group-'))
  const gate = path.join(folder, 'open')
  fs.writeFileSync(gate, '')
  vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
  vi.stubEnv('PTC_TEST_GATED_ENTRY', WORKER_ENTRY)
  try {
    await body(gate, folder)
  } finally {
    for (const made of groups.splice(0)) made.dispose()
    vi.unstubAllEnvs()
    fs.rmSync(folder, { recursive: true, force: true })
  }
}
