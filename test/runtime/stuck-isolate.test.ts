/**
 * An operation V8 cannot interrupt, still running on isolated-vm's thread after a limit or a
 * cancel stopped its run (S9.7, `stuck-isolate.ts`): the run is answered on time, and the worker
 * whose isolate thread goes on is replaced before it grows far past the run's memory bound (a
 * package trial saw 1.4 GB for a 128 MB run, the worker still serving for 10–15 s).
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { IsolateRunRequest } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { IsolateSupervisorGroup } from '../../src/ptc/isolate/supervisor-group.ts'
import { until } from './harness.ts'

/** The watch reads `/proc` (Linux); elsewhere it watches nothing. */
const linux = existsSync('/proc/self/task')
const supervisors: { dispose(): void }[] = []
afterEach(() => {
  for (const supervisor of supervisors.splice(0)) supervisor.dispose()
})

/** The highest peak resident memory (`VmHWM`, MB) read of process `pid` until `stop` resolves. */
async function peakRssMb(pid: number, stop: Promise<unknown>): Promise<number> {
  let peak = 0
  let stopped = false
  void stop.finally(() => (stopped = true))
  while (!stopped) {
    try {
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)
    } catch {
      // The process has gone.
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return peak
}

/** A lone worker's supervisor, ready, disposed after the test; its worker's pid; and, for `watch`, when it is replaced and its peak RSS until then. */
async function readySupervisor() {
  const supervisor = new IsolateSupervisor({ poolSize: 1 })
  supervisors.push(supervisor)
  await supervisor.prewarm()
  const pid = supervisor.workerPid!
  const watch = () => {
    const replaced = until(() => supervisor.workerPid !== pid, 60_000)
    return { replaced, peak: peakRssMb(pid, replaced) }
  }
  return { supervisor, pid, watch }
}

const request = (js: string, extra: Partial<IsolateRunRequest> = {}): IsolateRunRequest => ({ js, toolNames: [], dispatch: async () => ({ ok: true, valueJson: 'null' }), limits: { cpuTimeMs: 300, wallClockMs: 60_000, memoryMb: 128 }, ...extra })
const FILL = 'const a = new Array(2 ** 28).fill(1.5)\nreturn a.length'

describe('an operation V8 cannot interrupt, left running after its run was stopped (S9.7)', () => {
  it.runIf(linux)("S9.7 after the CPU limit, the worker whose isolate thread goes on is replaced before it grows far past the run's memory bound; the next run gets a fresh worker", async () => {
    const { supervisor, pid, watch } = await readySupervisor()
    const { replaced, peak } = watch()
    expect(await supervisor.run(request(FILL))).toMatchObject({ status: 'timeout', error: { name: 'TimeoutError' } })
    await replaced
    // Left alone, the operation took the worker to about 1.4 GB before V8 gave up on it.
    expect(await peak).toBeLessThan(640)
    expect(await supervisor.run(request('return 2'))).toMatchObject({ status: 'ok', value: 2 })
    expect(supervisor.workerPid).not.toBe(pid)
  }, 90_000)

  it.runIf(linux)('S9.7 a script that returns while a callback it started runs such an operation: the run ends ok with a warning, and its worker is replaced', async () => {
    const { supervisor, pid, watch } = await readySupervisor()
    const { replaced, peak } = watch()
    // Twenty turns later: after the script's end has been reported.
    const result = await supervisor.run(request('void (async () => { for (let i = 0; i < 20; i++) await null; new Array(2 ** 28).fill(1.5) })()\nreturn 1'))
    expect(result).toMatchObject({ status: 'ok', value: 1, warnings: [{ kind: 'kept-running' }] })
    await replaced
    expect(await peak).toBeLessThan(640)
  }, 90_000)

  it.runIf(linux)('S9.7 with another run in flight on that worker, that run ends as it would, and the worker is replaced once it has none', async () => {
    const { supervisor, pid, watch } = await readySupervisor()
    const { replaced, peak } = watch()
    let answer: (outcome: { ok: true; valueJson: string }) => void = () => {}
    const waiting = supervisor.run(request('return await tools.wait({})', { toolNames: ['wait'], dispatch: () => new Promise((resolve) => (answer = resolve)) }))
    expect(await supervisor.run(request(FILL))).toMatchObject({ status: 'timeout' })
    // While a run is on it, the worker may grow by that run's own bound: it is not judged then.
    answer({ ok: true, valueJson: '"answered"' })
    expect(await waiting).toMatchObject({ status: 'ok', value: 'answered' })
    await replaced
    expect(await peak).toBeLessThan(1_000)
    expect(supervisor.workerPid).not.toBe(pid)
  }, 90_000)

  it.runIf(linux)('S9.7 after a run that an interruptible loop spent its CPU limit in, the worker stays, through short busy runs between the watch\'s looks', async () => {
    const { supervisor, pid } = await readySupervisor()
    expect(await supervisor.run(request('while (true) {}'))).toMatchObject({ status: 'timeout' })
    // Busy runs of about 90 ms, 160 ms apart, for longer than the watch looks (a review retired a healthy worker so).
    for (let run = 0; run < 8; run++) {
      expect(await supervisor.run(request('const until = Date.now() + 90\nwhile (Date.now() < until) {}\nreturn 3'))).toMatchObject({ status: 'ok', value: 3 })
      await new Promise((resolve) => setTimeout(resolve, 160))
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await supervisor.run(request('return 3'))).toMatchObject({ status: 'ok', value: 3 })
    expect(supervisor.workerPid).toBe(pid)
  }, 60_000)

  it.runIf(linux)('S9.7 with two workers, the run after one a limit stopped goes to the other worker, so it neither shares a stuck thread nor is blamed for it', async () => {
    // A host's first run has one worker, and runs on isolated-vm's thread: there the operation outlives its run.
    const group = new IsolateSupervisorGroup({ poolSize: 1, spreadFromRun: 2 })
    supervisors.push(group)
    expect(await group.run(request(FILL))).toMatchObject({ status: 'timeout' })
    // The second run starts the second worker. Sent to the first one, such loops were answered
    // late, as an operation that could not be interrupted (a package trial, 3 of 3).
    const loop = await group.run(request('while (true) {}'))
    expect(loop).toMatchObject({ status: 'timeout', error: { message: expect.stringContaining('used more than its CPU time limit of 300 ms') } })
    expect(group.runsByWorker).toEqual([1, 1])
  }, 90_000)
})
