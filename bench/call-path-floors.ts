/**
 * Floors of `call-path.bench.ts` that are cases of their own (issue 12): the trivial run after a
 * pause, and what a fresh isolate costs with and without the product's runtime in it.
 */
import ivm from 'isolated-vm'
import { disposeQuietly, prepareIsolate } from '../src/ptc/isolate/isolate-pool.ts'
import { FLOOR_CHANNEL, FLOOR_LATENCY, FLOOR_RAW, ISOLATE_RAW, ISOLATE_RUNTIME } from './call-path-summary.ts'
import type { ScriptRunner } from './call-path-fixtures.ts'
import type { BenchCase } from './harness.ts'

/** The pause before a trivial run (ms), as between model turns. */
export const PAUSE_MS = 50

/**
 * The floor of the trivial-run latency (a run after a pause, as model turns come): the same pause,
 * then what no implementation of a run in a worker process can skip. One message there and back
 * over the worker channel (both processes asleep, as the host and the worker are between turns) and, on an isolate
 * and context made during the pause, raw isolated-vm's compile and run of `return 1 + 1`; each
 * alone, and in a row after `run_code`'s host part (`hostPart`: the pipeline, the compile-cache
 * lookup, the result's checks, with the isolate step answered at once), as a run has them, so the
 * machine wakes once for the three, as it does for a run.
 */
export function latencyFloorCases(roundTrip: () => Promise<unknown>, hostPart: ScriptRunner): BenchCase[] {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
  let ahead: { isolate: ivm.Isolate; context: ivm.Context } | undefined
  const prepareAhead = async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 })
    ahead = { isolate, context: isolate.createContextSync() }
    await sleep()
  }
  const rawRun = async () => {
    const { isolate, context } = ahead!
    const script = isolate.compileScriptSync('(async () => 1 + 1)().then(JSON.stringify)')
    if ((await script.run(context, { promise: true })) !== '2') throw new Error('raw trivial run failed')
    isolate.dispose()
  }
  return [
    { name: FLOOR_CHANNEL, run: roundTrip, pause: sleep, iterations: 10 },
    { name: FLOOR_RAW, pause: prepareAhead, run: rawRun, iterations: 10 },
    {
      name: FLOOR_LATENCY,
      pause: prepareAhead,
      run: async () => {
        await hostPart.run('trivial')
        await roundTrip()
        await rawRun()
      },
      iterations: 10,
    },
  ]
}

/**
 * A fresh isolate's cost on this thread, made, used for one trivial script and disposed, back to
 * back: raw isolated-vm's (the isolate and its context) and the product's (`prepareIsolate` from
 * the runtime snapshot, as the worker's pool makes each one: the isolate, its context, the
 * runtime installed). The script is there because the first compile in a fresh isolate costs
 * about 0.13 ms whatever it compiles: raw pays it for its script, the product for the runtime's
 * install. The difference is what the runtime (S9.1-S9.3: `tools`, `ToolCallError`, console
 * capture, the JSON checks) adds to every cold run.
 */
export function isolateLifecycleCases(): BenchCase[] {
  const trivial = (isolate: ivm.Isolate, context: ivm.Context) => {
    if (isolate.compileScriptSync('1 + 1').runSync(context) !== 2) throw new Error('the trivial script failed')
  }
  return [
    {
      name: ISOLATE_RAW,
      run: () => {
        const isolate = new ivm.Isolate({ memoryLimit: 128 })
        trivial(isolate, isolate.createContextSync())
        isolate.dispose()
      },
      iterations: 40,
    },
    {
      name: ISOLATE_RUNTIME,
      run: async () => {
        // makeSnapshot: the runtime snapshot is made on the first call and kept for the process.
        const { isolate, context } = await prepareIsolate({ memoryMb: 128, makeSnapshot: true })
        trivial(isolate, context)
        disposeQuietly(isolate)
      },
      iterations: 40,
    },
  ]
}
