/**
 * Sequential steps run on the calling thread (`IsolateRunRequest.stepHere`, issue 12): the
 * isolate worker enters the isolate with `applySync` for a run's first step and for the answer to
 * a script's only call outstanding, so the script's next call leaves before that thread sleeps. The limits, the
 * script's unhandled rejections, logs and its ending hold as on isolated-vm's own thread (S9.3,
 * S9.7). Run in this test process, as the worker would.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { IsolateToolCall, IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { run } from './harness.ts'

const pool = new IsolatePool({ size: 1 })
afterAll(() => pool.dispose())

/**
 * `stepHere` that always allows, and records for each call whether it was dispatched in the same
 * synchronous stretch as a `stepHere` that allowed it: true only when the step that made the call
 * ran inside the runner's flush (a step on the isolate's thread makes it later, in a callback).
 */
function recordingSteps(allow: boolean | ((asked: number) => boolean) = true): { stepHere: () => boolean; dispatch: (call: IsolateToolCall) => Promise<IsolateToolOutcome>; inStep: boolean[] } {
  let stepping = false
  let asked = 0
  const inStep: boolean[] = []
  return {
    inStep,
    stepHere: () => {
      stepping = true
      queueMicrotask(() => (stepping = false))
      return typeof allow === 'function' ? allow(++asked) : allow
    },
    dispatch: async (call) => {
      inStep.push(stepping)
      // Answered a turn later, as the host's answer reaches the worker: the entry that made the
      // call has been seen to end by then (a step starts here only when no other entry is open).
      await new Promise((resolve) => setImmediate(resolve))
      return { ok: true, valueJson: call.name === 'echo' ? call.argsJson : 'null' }
    },
  }
}

const SEQUENTIAL = 'let sum = 0\nfor (let i = 0; i < 5; i++) sum += (await tools.echo({ i })).i\nconsole.log("sum", sum)\nreturn sum'

describe('steps on the calling thread (issue 12, S9.3, S9.7)', () => {
  it('issue 12 the first step and each sequential step run here when stepHere allows: every call is made inside one', async () => {
    const steps = recordingSteps()
    const { result } = await run(SEQUENTIAL, steps, pool)
    expect(result).toMatchObject({ status: 'ok', value: 10, logs: [{ level: 'log', text: 'sum 10' }] })
    // The first call is made by `start`'s step, the other four by the steps of the answers.
    expect(steps.inStep).toEqual([true, true, true, true, true])
  })

  it('issue 12 when stepHere refuses only the first step, it runs on the isolate thread and the later steps here', async () => {
    const steps = recordingSteps((asked) => asked > 1)
    const { result } = await run(SEQUENTIAL, steps, pool)
    expect(result).toMatchObject({ status: 'ok', value: 10 })
    expect(steps.inStep).toEqual([false, true, true, true, true])
  })

  it('issue 12 when stepHere refuses, every step runs on the isolate thread, with the same outcome', async () => {
    const steps = recordingSteps(false)
    const { result } = await run(SEQUENTIAL, steps, pool)
    expect(result).toMatchObject({ status: 'ok', value: 10, logs: [{ level: 'log', text: 'sum 10' }] })
    expect(steps.inStep).toEqual([false, false, false, false, false])
  })

  it('issue 12 a step runs here only once no earlier entry can still be running: after entries not waited for, one waited for comes first', async () => {
    // Refused for the first step and the first two answers (their steps go unobserved to the isolate's thread), then allowed.
    const steps = recordingSteps((asked) => asked > 3)
    const { result } = await run('for (let i = 0; i < 6; i++) await tools.noop()\nreturn 6', steps, pool)
    expect(result).toMatchObject({ status: 'ok', value: 6 })
    // Calls 1-3 come from steps on the isolate's thread; the third answer's step is waited for
    // there (call 4); from the fourth answer on, the steps run here.
    expect(steps.inStep).toEqual([false, false, false, false, true, true])
  })

  for (const count of [140, 170]) {
    it(`S9.3 calls the host refuses while a step runs here (${count}, more than a batch) each reject with their ToolCallError`, async () => {
      // 602 UTF-16 units of JSON pass the runtime's own check; 1,202 UTF-8 bytes fail the host's, at
      // once. 170 outcomes in one entry would be 511 arguments, a count isolated-vm drops.
      const js = `await tools.noop()\nconst arg = 'é'.repeat(600)\nconst outcomes = await Promise.all(Array.from({ length: ${count} }, () => tools.echo(arg).then(() => 'ok', (e) => e.message.slice(0, 24))))\nreturn outcomes.filter((o) => o === 'the arguments are too la').length`
      const { result } = await run(js, { ...recordingSteps(), limits: { maxCrossingBytes: 1000 } }, pool)
      expect(result).toMatchObject({ status: 'ok', value: count })
    })
  }

  it('S9.3 a burst of calls answered while the entry making them still runs: every call gets its outcome (stepHere allows throughout)', async () => {
    // Answered at once: the 128 calls of one crossing are all settled while the script, still in
    // `start`'s entry, is making the next ones. A step that may run here waits for that entry, and
    // the outcomes that come meanwhile wait behind it.
    const instant = async (call: IsolateToolCall): Promise<IsolateToolOutcome> => ({ ok: true, valueJson: call.argsJson })
    const js = 'const all = await Promise.all(Array.from({ length: 600 }, (_, i) => tools.echo({ i })))\nreturn all.reduce((sum, r) => sum + r.i, 0)'
    const { result } = await run(js, { stepHere: () => true, dispatch: instant, limits: { wallClockMs: 10_000 } }, pool)
    expect(result).toMatchObject({ status: 'ok', value: (600 * 599) / 2 })
  })

  it('S9.7 an endless loop in a step run here ends at the CPU limit, naming it', async () => {
    const { result } = await run('await tools.noop()\nwhile (true) {}', { ...recordingSteps(), limits: { cpuTimeMs: 300, wallClockMs: 20_000 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', error: { name: 'TimeoutError', message: expect.stringMatching(/CPU time limit of 300 ms \(cpuTimeMs\)/) } })
  })

  it('S9.7 a step run here that outlasts the wall clock ends at the wall-clock limit', async () => {
    const { result } = await run('await tools.noop()\nwhile (true) {}', { ...recordingSteps(), limits: { cpuTimeMs: 20_000, wallClockMs: 300 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', error: { name: 'TimeoutError', message: expect.stringContaining('wall-clock limit of 300 ms') } })
  })

  it('S9.7 a step run here that a limit ends withdraws the calls it made: not counted, not named as running but as not made, and the deadline names the code', async () => {
    const steps = recordingSteps()
    const seen: [boolean, boolean | undefined][] = []
    const script = 'await tools.noop()\nfor (let i = 0; i < 3; i++) tools.echo({ i })\nwhile (true) {}'
    const { result } = await run(script, { ...steps, onStepHere: (running, withdrawn) => void seen.push([running, withdrawn]), limits: { cpuTimeMs: 20_000, wallClockMs: 400 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 1 })
    // The first step ran here too, and ended with its call made.
    expect(seen).toEqual([[true, false], [false, false], [true, false], [false, true]])
    expect(result.error?.message).toContain("most of it went to running the script's code")
    // The first left the isolate at once, the others were still batched in it: not made either.
    expect(result.error?.message).toMatch(/ The tool calls the script made in the code the limit stopped, without awaiting them, were not made \(at least 1 call: echo\): a call leaves only once the script pauses \(at an await\)\.$/)
    expect(result.error?.message).not.toMatch(/running[^.]*echo/)
  })

  it('S9.7 a first step run here that the CPU limit ends, after one call it did not await: that call is said not to be made', async () => {
    const { result } = await run('tools.echo({ at: "start" })\nwhile (true) {}', { ...recordingSteps(), limits: { cpuTimeMs: 300, wallClockMs: 20_000 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 0 })
    expect(result.error?.message).toContain('The tool calls the script made in the code the limit stopped, without awaiting them, were not made (at least 1 call: echo)')
  })

  it("S9.3 a step run here that leaves a rejection unhandled gets its warning, and the script's later steps still run", async () => {
    const js = 'await tools.noop()\nPromise.reject(new RangeError("nobody listens"))\nawait tools.noop()\nreturn 2'
    const { result } = await run(js, recordingSteps(), pool)
    expect(result).toMatchObject({ status: 'ok', value: 2, warnings: [{ kind: 'unhandled-rejection', message: expect.stringContaining('RangeError: nobody listens') }] })
  })

  it('S9.7 an endless loop in a first step run here ends at the CPU limit, and one that calls nothing holds the run to its wall clock', async () => {
    const cpu = await run('while (true) {}', { ...recordingSteps(), limits: { cpuTimeMs: 300, wallClockMs: 20_000 } }, pool)
    expect(cpu.result).toMatchObject({ status: 'timeout', toolCalls: 0, error: { message: expect.stringMatching(/CPU time limit of 300 ms \(cpuTimeMs\)/) } })
    const wall = await run('while (true) {}', { ...recordingSteps(), limits: { cpuTimeMs: 20_000, wallClockMs: 300 } }, pool)
    expect(wall.result).toMatchObject({ status: 'timeout', error: { message: expect.stringContaining('wall-clock limit of 300 ms') } })
  })

  it('S9.3 a first step run here: its unhandled rejection is warned, its throw has its line, its logs are kept', async () => {
    const rejected = await run('Promise.reject(new RangeError("first step"))\nreturn 1', recordingSteps(), pool)
    expect(rejected.result).toMatchObject({ status: 'ok', value: 1, warnings: [{ kind: 'unhandled-rejection', message: expect.stringContaining('RangeError: first step') }] })
    const thrown = await run('console.log("before")\n\nthrow new TypeError("at once")', recordingSteps(), pool)
    expect(thrown.result).toMatchObject({ status: 'error', logs: [{ level: 'log', text: 'before' }], error: { name: 'TypeError', message: 'at once', frames: [expect.objectContaining({ line: 3 })] } })
  })

  it('S9.3 a script that throws in a step run here ends with its error and line', async () => {
    const { result } = await run('await tools.noop()\nthrow new TypeError("in a later step")', recordingSteps(), pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'TypeError', message: 'in a later step', frames: [expect.objectContaining({ line: 2 })] } })
  })
})
