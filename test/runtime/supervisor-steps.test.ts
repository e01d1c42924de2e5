/**
 * A run's sequential steps on its isolate worker's main thread (issue 12, `step-permission.ts`):
 * taken while another worker of the group stands idle, never by a lone worker; a new run then
 * goes to the idle worker, not to the one a step holds; recursion reaches as deep as on
 * isolated-vm's own threads; a cancel still ends the run (S9.1, S9.7).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { cpuSince, threadCpu } from '../../bench/thread-cpu.ts'
import type { IsolateRunRequest, IsolateRunResult, IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { IsolateSupervisorGroup } from '../../src/ptc/isolate/supervisor-group.ts'
import { workerStackFlag } from '../../src/ptc/isolate/worker-stack.ts'
import { run, until } from './harness.ts'

const disposers: (() => void)[] = []
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose()
})

/** A group of two workers, both ready (its second run starts the second); disposed after the test. */
async function readyGroup(graceMs?: number): Promise<IsolateSupervisorGroup> {
  const group = await startGroup(graceMs)
  disposers.push(() => group.dispose())
  return group
}

async function startGroup(graceMs = 500): Promise<IsolateSupervisorGroup> {
  const group = new IsolateSupervisorGroup({ poolSize: 1, graceMs, spreadFromRun: 2 })
  await group.run(request('return 0'))
  await group.run(request('return 0'))
  await until(() => group.readyWorkers === 2, 30_000)
  return group
}

/** One group for the tests that leave both its workers as they found them (no worker retired). */
let shared: Promise<IsolateSupervisorGroup> | undefined
const sharedGroup = async (): Promise<IsolateSupervisorGroup> => {
  const group = await (shared ??= startGroup())
  // Free: no step holds either, and neither is kept from runs after one a limit stopped (SUSPECT_MS).
  await until(() => group.freeWorkers === 2 && group.workerPids.length === 2, 30_000)
  return group
}
afterAll(async () => (await shared)?.dispose())

const answered = async (): Promise<IsolateToolOutcome> => ({ ok: true, valueJson: 'null' })
const request = (js: string, extra: Partial<IsolateRunRequest> = {}): IsolateRunRequest => ({ js, toolNames: ['wait'], dispatch: answered, limits: { wallClockMs: 60_000, cpuTimeMs: 60_000 }, ...extra })

/** A run whose step after its first call is busy for `ms`; resolves `started` once that call is answered. */
function busyAfterCall(runner: { run: (request: IsolateRunRequest) => Promise<IsolateRunResult> }, ms: number, signal?: AbortSignal) {
  let calls = 0
  const result = runner.run(request(`await tools.wait({})\nconst until = Date.now() + ${ms}\nwhile (Date.now() < until) {}\nreturn 'busy'`, { dispatch: async () => (calls++, answered()), ...(signal && { signal }) }))
  return { result, called: () => calls > 0 }
}

/** Resolves to the order in which `runs` (name → result) ended. */
function endOrder(runs: Record<string, Promise<IsolateRunResult>>): Promise<string[]> {
  const order: string[] = []
  return Promise.all(Object.entries(runs).map(([name, result]) => result.then(() => order.push(name)))).then(() => order)
}

const linux = threadCpu(process.pid).main > 0
const stackRaised = workerStackFlag({}, []) !== undefined

describe('steps on the isolate worker main thread (issue 12, S9.1)', () => {
  it.runIf(linux && stackRaised)("issue 12 with another worker idle, a run's sequential steps run on its worker's main thread", async () => {
    const group = await sharedGroup()
    const pids = group.workerPids
    const before = pids.map((pid) => threadCpu(pid))
    // 40 steps of about 5 ms of CPU each, after the first call.
    const js = 'let x = 0\nfor (let step = 0; step < 40; step++) { await tools.wait({}); for (let i = 0; i < 3e6; i++) x += i % 7 }\nreturn x > 0'
    expect(await group.run(request(js))).toMatchObject({ status: 'ok', value: true })
    const used = pids.map((pid, index) => cpuSince(before[index]!, threadCpu(pid)))
    const main = used.reduce((sum, cpu) => sum + cpu.main, 0)
    const isolateThreads = used.reduce((sum, cpu) => sum + cpu.other, 0)
    expect(main).toBeGreaterThan(isolateThreads)
  }, 60_000)

  it.runIf(linux && stackRaised)("issue 12 with another worker idle, a run's first step runs on its worker's main thread", async () => {
    const group = await sharedGroup()
    const pids = group.workerPids
    const before = pids.map((pid) => threadCpu(pid))
    // One step, no call: about 100 ms of CPU.
    expect(await group.run(request('let x = 0\nfor (let i = 0; i < 6e7; i++) x += i % 7\nreturn x > 0'))).toMatchObject({ status: 'ok', value: true })
    const used = pids.map((pid, index) => cpuSince(before[index]!, threadCpu(pid)))
    expect(used.reduce((sum, cpu) => sum + cpu.main, 0)).toBeGreaterThan(2 * used.reduce((sum, cpu) => sum + cpu.other, 0))
  }, 60_000)

  it('S9.1 a run sent while a first step holds one worker goes to the idle one and ends first', async () => {
    const group = await sharedGroup()
    // Held from the moment it is sent (the host marks its worker), so the quick run is routed away at once.
    const busy = group.run(request('const until = Date.now() + 800\nwhile (Date.now() < until) {}\nreturn "busy"'))
    const quick = group.run(request('return "quick"'))
    expect(await endOrder({ busy, quick })).toEqual(['quick', 'busy'])
    expect(await busy).toMatchObject({ status: 'ok', value: 'busy' })
  }, 60_000)

  it('S9.1 the host marks a worker as possibly held from the moment it sends a step the worker may hold, until the worker speaks again; a step it may not hold leaves no mark', async () => {
    for (const permitted of [true, false]) {
      const supervisor = new IsolateSupervisor({ poolSize: 1, mayBlock: () => permitted })
      disposers.push(() => supervisor.dispose())
      await supervisor.prewarm()
      const marks = new Set<boolean>()
      const sample = setInterval(() => marks.add(supervisor.mayBeBlocked), 10)
      const busy = await supervisor.run(request('const until = Date.now() + 400\nwhile (Date.now() < until) {}\nreturn "busy"')).finally(() => clearInterval(sample))
      expect(busy).toMatchObject({ status: 'ok', value: 'busy' })
      // During the 400 ms step the worker says nothing: marked throughout when permitted, never otherwise.
      expect([[...marks].includes(true), supervisor.mayBeBlocked]).toEqual([permitted, false])
    }
  }, 60_000)

  it.runIf(linux)('issue 12 a worker prepares the isolates of its pool on its main thread: back-to-back runs leave its isolate threads little to do', async () => {
    const worker = new IsolateSupervisor({ graceMs: 500 }) // the default pool of 2, refilled after each run
    disposers.push(() => worker.dispose())
    for (let run = 0; run < 10; run++) await worker.run(request('return 0'))
    const before = threadCpu(worker.workerPid!)
    for (let run = 0; run < 60; run++) expect(await worker.run(request('return 0'))).toMatchObject({ status: 'ok', value: 0 })
    const used = cpuSince(before, threadCpu(worker.workerPid!))
    // Made on the isolates' own threads, a context and its runtime took about a third of the main
    // thread's CPU (80 ms over these runs); made on the main thread, next to nothing is left (0-20 ms).
    expect(used.other * 6).toBeLessThan(used.main)
  }, 60_000)

  it('S9.1 a run sent while a step holds one worker goes to the idle one and ends first', async () => {
    const group = await sharedGroup()
    const busy = busyAfterCall(group, 800)
    await until(() => busy.called(), 30_000)
    await new Promise((resolve) => setTimeout(resolve, 50)) // the answer is in the busy step by now
    const quick = group.run(request('return "quick"'))
    expect(await endOrder({ busy: busy.result, quick })).toEqual(['quick', 'busy'])
    expect(await quick).toMatchObject({ status: 'ok', value: 'quick' })
    expect(await busy.result).toMatchObject({ status: 'ok', value: 'busy' })
  }, 60_000)

  it('S9.1 a step that makes more calls than one batch (130) still holds its worker for the routing: a new run goes elsewhere and ends first', async () => {
    const group = await sharedGroup()
    let made = 0
    const dispatch = async (call: { name: string }): Promise<IsolateToolOutcome> => (call.name === 'hang' ? new Promise(() => {}) : (made++, answered()))
    const toolNames = ['wait', 'hang']
    // The held step makes 130 calls that never answer, then stays busy for 2.5 s.
    const held = group.run(request('await tools.wait({})\nfor (let i = 0; i < 130; i++) tools.hang({}).catch(() => {})\nconst until = Date.now() + 1_500\nwhile (Date.now() < until) {}\nreturn "held"', { toolNames, dispatch, limits: { wallClockMs: 2_500, cpuTimeMs: 60_000 } }))
    await until(() => made > 0, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    // The other worker gets a run that waits 1.5 s for its tool; a third run then ties on load with the held worker.
    const other = group.run(request('await tools.wait({})\nreturn "other"', { dispatch: async () => (await new Promise((resolve) => setTimeout(resolve, 700)), answered()) }))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const quick = group.run(request('return "quick"'))
    expect(await endOrder({ held, other, quick })).toEqual(['quick', 'other', 'held'])
    // It returned; the run then waited for the calls it never awaited until its wall clock.
    expect(await held).toMatchObject({ value: 'held' })
  }, 60_000)

  it("S9.1 when the idle worker dies while a step holds the other, a new run waits for the replacement, not for the held step", async () => {
    const group = await readyGroup()
    // Busy far longer than a replacement takes to start on a loaded machine; cancelled once the quick run is in.
    const stop = new AbortController()
    const busy = busyAfterCall(group, 40_000, stop.signal)
    await until(() => busy.called(), 30_000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    // The idle worker takes this run, and is retired and replaced for its memory overrun.
    const bomb = await group.run(request('const a = []\nwhile (true) a.push(new Array(100_000).fill(1.5))', { limits: { memoryMb: 32, wallClockMs: 60_000, cpuTimeMs: 60_000 } }))
    expect(bomb.status).toBe('memory')
    const quick = group.run(request('return "quick"'))
    const order = endOrder({ busy: busy.result, quick })
    void quick.finally(() => stop.abort()) // after endOrder has seen it end
    expect(await order).toEqual(['quick', 'busy'])
    expect(await quick).toMatchObject({ status: 'ok', value: 'quick' })
  }, 90_000)

  it('S9.7 a runaway native allocation in a step that holds its worker ends the run `memory` (the watchdog ends the worker), and the group keeps serving', async () => {
    const group = await readyGroup()
    const result = await group.run(request('await tools.wait({})\nconst a = new Array(2 ** 28).fill(1.5)\nreturn a.length', { limits: { memoryMb: 32, wallClockMs: 60_000, cpuTimeMs: 60_000 } }))
    expect(result).toMatchObject({ status: 'memory', error: { name: 'MemoryError', message: expect.stringContaining('without pausing for a tool call') } })
    expect(await group.run(request('return 4'))).toMatchObject({ status: 'ok', value: 4 })
  }, 90_000)

  it('S9.7 one operation V8 cannot interrupt, in a held step, ends `timeout` at the CPU limit (the watchdog ends the worker), not as a crash 5 s later', async () => {
    const group = await readyGroup()
    const limits = { cpuTimeMs: 1_000, wallClockMs: 60_000, memoryMb: 512 }
    const result = await group.run(request('const a = new Array(2 ** 28).fill(1.5)\nreturn a.length', { limits }))
    expect(result).toMatchObject({ status: 'timeout', error: { name: 'TimeoutError', message: expect.stringContaining('ran past its CPU time limit of 1000 ms (cpuTimeMs) inside one operation that could not be interrupted') } })
    expect(await group.run(request('return 6'))).toMatchObject({ status: 'ok', value: 6 })

  }, 90_000)

  it('S9.1 a lone worker never lets a step hold it: a run sent during another run\'s busy step ends first', async () => {
    const supervisor = new IsolateSupervisor({ poolSize: 1 })
    disposers.push(() => supervisor.dispose())
    await supervisor.prewarm()
    const busy = busyAfterCall(supervisor, 800)
    await until(() => busy.called(), 30_000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await endOrder({ busy: busy.result, quick: supervisor.run(request('return 1')) })).toEqual(['quick', 'busy'])
  }, 60_000)

  it.runIf(stackRaised)("issue 12 recursion in steps held on the worker's main thread, before and after a call, reaches about as deep as on isolated-vm's own thread", async () => {
    const group = await sharedGroup()
    const depth = 'function depth(n) { try { return depth(n + 1) } catch { return n } }'
    // The reference: the same recursion on isolated-vm's thread, in this process (about 104,000 frames).
    const { result: reference } = await run(`${depth}\nreturn depth(0)`)
    const result = await group.run(request(`${depth}\nconst first = depth(0)\nawait tools.wait({})\nreturn [first, depth(0)]`))
    expect(result.status).toBe('ok')
    // The worker's raised main thread: about 89,000 (12,500 without).
    for (const held of result.value as [number, number]) expect(held).toBeGreaterThan((reference.value as number) * 0.6)
  }, 60_000)

  it('S9.7 calls a held step made before a limit ended it never start: the host sees none of them, and the deadline names the code', async () => {
    const group = await sharedGroup()
    for (const count of [1, 200]) {
      // Each step held: the other worker free (not kept from runs after the last one's limit).
      await until(() => group.freeWorkers === 2, 30_000)
      const seen: string[] = []
      const dispatch = async (call: { name: string }) => (seen.push(call.name), answered())
      const js = `await tools.wait({})\nfor (let i = 0; i < ${count}; i++) tools.side({ i }).catch(() => {})\nwhile (true) {}`
      const result = await group.run(request(js, { toolNames: ['wait', 'side'], dispatch, limits: { wallClockMs: 1_000, cpuTimeMs: 60_000, maxToolCalls: 1_000 } }))
      expect(result).toMatchObject({ status: 'timeout', toolCalls: 1 })
      expect(result.error?.message).toContain("most of it went to running the script's code")
      expect(seen).toEqual(['wait'])
    }
    expect(await group.run(request('return 4'))).toMatchObject({ status: 'ok', value: 4 })
  }, 60_000)

  it('S9.1 a cancel of a run whose step holds its worker is answered at once; the worker is replaced only if the step still holds it after graceMs', async () => {
    const graceMs = 600
    const group = await readyGroup(graceMs)
    let called = false
    const dispatch = async () => ((called = true), answered())
    const cancelDuringStep = async (js: string) => {
      const controller = new AbortController()
      called = false
      const result = group.run(request(js, { signal: controller.signal, dispatch }))
      await until(() => called, 30_000)
      await new Promise((resolve) => setTimeout(resolve, 50)) // the answer is in the held step by now
      controller.abort()
      return result
    }
    const pids = group.workerPids
    expect(await cancelDuringStep('await tools.wait({})\nwhile (true) {}')).toMatchObject({ status: 'cancelled', error: { name: 'CancelledError' } })
    // Answered while the endless step still holds its worker, before graceMs: no worker retired yet.
    expect(group.workerPids).toEqual(pids)
    await until(() => pids.some((pid) => !group.workerPids.includes(pid)), 30_000) // then the held one is
    expect(await group.run(request('return 3'))).toMatchObject({ status: 'ok', value: 3 })
    await until(() => group.freeWorkers === 2 && group.workerPids.length === 2, 30_000)
    // A step that returns on its own after the cancel: its worker reads the cancel then, and stays.
    const served = group.workerPids
    expect(await cancelDuringStep('await tools.wait({})\nconst until = Date.now() + 300\nwhile (Date.now() < until) {}\nreturn 1')).toMatchObject({ status: 'cancelled' })
    await new Promise((resolve) => setTimeout(resolve, graceMs + 1_000))
    expect(group.workerPids).toEqual(served)
  }, 90_000)

  it('S9.1 a cancel ends a run whose busy step holds its worker, and the group keeps serving', async () => {
    const group = await readyGroup()
    const controller = new AbortController()
    let called = false
    const endless = group.run(request('await tools.wait({})\nwhile (true) {}', { signal: controller.signal, dispatch: async () => ((called = true), answered()) }))
    await until(() => called, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    controller.abort()
    expect(await endless).toMatchObject({ status: 'cancelled' })
    expect(await group.run(request('return 3'))).toMatchObject({ status: 'ok', value: 3 })
    // The same for an endless first step, which makes no call.
    const first = new AbortController()
    const endlessFirst = group.run(request('while (true) {}', { signal: first.signal }))
    setTimeout(() => first.abort(), 100)
    expect(await endlessFirst).toMatchObject({ status: 'cancelled' })
    expect(await group.run(request('return 4'))).toMatchObject({ status: 'ok', value: 4 })
  }, 60_000)
})
