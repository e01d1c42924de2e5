/**
 * What process isolation costs (SPEC S9; `PtcConfig.isolation`): the same scripts through
 * `runInIsolate` with an in-process `IsolatePool` (`inline`) and through an `IsolateSupervisor`
 * whose worker process owns the isolates (`process`), with the same trivial host `dispatch`, so
 * the difference is the worker's IPC: one JSON message each way per tool call, two per run.
 * - a trivial run (`return 1`), back to back (each run also pays its isolate's replacement) and
 *   with an untimed pause before each run (the latency a caller sees when the pool has refilled);
 * - 2,000 sequential `await tools.noop({})`; per call = (that run − trivial run) / 2,000;
 * - 2,000 parallel `tools.noop({})` (`Promise.all`), per call likewise.
 * The registry pipeline a real `run_code` adds per call is the same in both (see the run_code
 * section), so it is left out here.
 */
import type { IsolateRunRequest, IsolateRunResult } from '../src/ptc/isolate/isolate-contract.ts'
import { IsolatePool } from '../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../src/ptc/isolate/isolate-run.ts'
import { IsolateSupervisor } from '../src/ptc/isolate/isolate-supervisor.ts'
import { section } from './harness.ts'

const CALLS = 2_000
const INLINE_TRIVIAL = 'inline: trivial run'
const PROCESS_TRIVIAL = 'process: trivial run'
const INLINE_SEQUENTIAL = `inline: ${CALLS} sequential tools.noop()`
const PROCESS_SEQUENTIAL = `process: ${CALLS} sequential tools.noop()`
const INLINE_LATENCY = 'inline: trivial run (pool refilled)'
const PROCESS_LATENCY = 'process: trivial run (pool refilled)'
const PAUSE_MS = 50
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
const INLINE_PARALLEL = `inline: ${CALLS} parallel tools.noop()`
const PROCESS_PARALLEL = `process: ${CALLS} parallel tools.noop()`

let teardown: (() => void) | undefined

export const isolation = section(
  'isolate worker: inline vs process isolation (runner level, trivial dispatch)',
  async () => {
    const pool = new IsolatePool({ size: 2 })
    const supervisor = new IsolateSupervisor({ poolSize: 2 })
    const started = performance.now()
    await supervisor.prewarm()
    const startupMs = performance.now() - started
    teardown = () => {
      pool.dispose()
      supervisor.dispose()
    }
    const request = (js: string): IsolateRunRequest => ({
      js,
      toolNames: ['noop'],
      limits: { maxToolCalls: CALLS + 10, maxCallsInFlight: CALLS },
      dispatch: async () => ({ ok: true, valueJson: 'null' }),
    })
    const check = async (result: Promise<IsolateRunResult>) => {
      const { status, error } = await result
      if (status !== 'ok') throw new Error(`bench script failed: ${status} ${JSON.stringify(error)}`)
    }
    const trivial = request('return 1')
    const sequential = request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop({})\nreturn 1`)
    const parallel = request(`await Promise.all(Array.from({ length: ${CALLS} }, () => tools.noop({})))\nreturn 1`)
    console.log(`  worker process start-up (prewarm, compile cache warm after the first start): ${startupMs.toFixed(0)} ms`)
    return [
      { name: INLINE_TRIVIAL, run: () => check(runInIsolate(trivial, pool)), baseline: true },
      { name: PROCESS_TRIVIAL, run: () => check(supervisor.run(trivial)) },
      { name: INLINE_LATENCY, run: () => check(runInIsolate(trivial, pool)), pause, iterations: 15 },
      { name: PROCESS_LATENCY, run: () => check(supervisor.run(trivial)), pause, iterations: 15 },
      { name: INLINE_SEQUENTIAL, run: () => check(runInIsolate(sequential, pool)) },
      { name: PROCESS_SEQUENTIAL, run: () => check(supervisor.run(sequential)) },
      { name: INLINE_PARALLEL, run: () => check(runInIsolate(parallel, pool)) },
      { name: PROCESS_PARALLEL, run: () => check(supervisor.run(parallel)) },
    ]
  },
  {
    samples: 7,
    iterations: 5,
    warmup: 5,
    summary: (m) => {
      const inline = (m[INLINE_SEQUENTIAL]! - m[INLINE_TRIVIAL]!) / CALLS
      const process = (m[PROCESS_SEQUENTIAL]! - m[PROCESS_TRIVIAL]!) / CALLS
      const inlineParallel = (m[INLINE_PARALLEL]! - m[INLINE_TRIVIAL]!) / CALLS
      const processParallel = (m[PROCESS_PARALLEL]! - m[PROCESS_TRIVIAL]!) / CALLS
      return [
        `trivial run back to back: inline ${m[INLINE_TRIVIAL]!.toFixed(0)} µs, process ${m[PROCESS_TRIVIAL]!.toFixed(0)} µs (${(m[PROCESS_TRIVIAL]! / m[INLINE_TRIVIAL]!).toFixed(2)}×, +${(m[PROCESS_TRIVIAL]! - m[INLINE_TRIVIAL]!).toFixed(0)} µs)`,
        `trivial run latency (pool refilled, ${PAUSE_MS} ms apart): inline ${m[INLINE_LATENCY]!.toFixed(0)} µs, process ${m[PROCESS_LATENCY]!.toFixed(0)} µs (+${(m[PROCESS_LATENCY]! - m[INLINE_LATENCY]!).toFixed(0)} µs: the run and result messages between the two processes)`,
        `sequential call: inline ${inline.toFixed(2)} µs/call, process ${process.toFixed(2)} µs/call (${(process / inline).toFixed(2)}×, +${(process - inline).toFixed(2)} µs/call)`,
        `parallel call: inline ${inlineParallel.toFixed(2)} µs/call, process ${processParallel.toFixed(2)} µs/call (${(processParallel / inlineParallel).toFixed(2)}×)`,
      ]
    },
  },
)
Object.defineProperty(isolation, 'teardown', { get: () => teardown })
