/**
 * One fresh process for `call-path.bench.ts` (issue 12: trivial run latency with the pool
 * refilled): a process-isolation host with nothing else in the process runs `return 1` through
 * `run_code` after a 50 ms pause, 120 times, in blocks of 10 that alternate a thread of this
 * process waking every 25 µs (doing nothing, as a CPU profiler's sampling thread does, so the
 * cores never go idle) with no such thread, and prints one JSON line of medians in ms:
 * `{ idleMs, awakeMs }`. The difference is the machine waking up for a run, not the run's work.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { createHost } from '../src/index.ts'

const PAUSE_MS = 50
const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-latency-'))
const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { typecheck: false } })
const flag = new Int32Array(new SharedArrayBuffer(4))
// 0: asleep until told, 1: wake every 25 µs, 2: end.
const ticker = new Worker(
  `const { workerData: flag } = require('node:worker_threads')
   const sleeper = new Int32Array(new SharedArrayBuffer(4))
   for (;;) { const state = Atomics.load(flag, 0); if (state === 2) break; if (state === 0) Atomics.wait(flag, 0, 0); else Atomics.wait(sleeper, 0, 0, 0.025) }`,
  { eval: true, workerData: flag },
)
const setTicker = (state: number) => {
  Atomics.store(flag, 0, state)
  Atomics.notify(flag, 0)
}
const run = async () => {
  const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'return 1', typecheck: false } }, { agent: 'bench' })
  if (result.isError) throw new Error(`latency-child: run_code failed: ${JSON.stringify(result.value ?? result.error)}`)
}
for (let index = 0; index < 20; index++) {
  await sleep(20)
  await run()
}
const timings: Record<'idle' | 'awake', number[]> = { idle: [], awake: [] }
for (let block = 0; block < 12; block++) {
  const awake = block % 2 === 1
  setTicker(awake ? 1 : 0)
  for (let index = 0; index < 10; index++) {
    await sleep(PAUSE_MS)
    const started = performance.now()
    await run()
    timings[awake ? 'awake' : 'idle'].push(performance.now() - started)
  }
}
setTicker(2)
await ticker.terminate()
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
process.stdout.write(`${JSON.stringify({ idleMs: median(timings.idle), awakeMs: median(timings.awake) })}\n`)
await host.dispose()
rmSync(workspace, { recursive: true, force: true })
