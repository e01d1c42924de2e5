/**
 * What `call-path.bench.ts` prints after its table (issue 12): one sequential call hop by hop,
 * where the time of a call goes in place and by thread, and each target of issue 12 beside its
 * measured value and the floor measured in the same run. The case names are here so both files
 * agree on them.
 */
import { loadavg } from 'node:os'
import { CALLS, PAYLOAD_CALLS, type ScriptName } from './call-path-fixtures.ts'
import type { ThreadCpu } from './thread-cpu.ts'

/**
 * `raw`: raw isolated-vm as the harness runs it; `inline`, `process`: the product; `raw+host`,
 * `raw-worker+host`: the product's design with nothing of its own in the isolate or the worker,
 * raw isolated-vm (in this process, in a worker process over the worker channel) whose host function runs the
 * product host's bridge, gate and pipeline: the floors of the two designs (issue 12).
 * `sync-worker+host`: the same in a worker process that drives its isolate from its main thread
 * (`sync-worker-child.ts`), as the product's worker runs a sequential step while another worker
 * is idle (`step-permission.ts`): the floor of the worker process's sequential and 64 KB calls.
 */
export const RUNNERS = ['raw', 'inline', 'process', 'raw+host', 'raw-worker+host', 'sync-worker+host'] as const
export type RunnerName = (typeof RUNNERS)[number]
export const caseName = (runner: RunnerName, script: ScriptName) => `${runner}: ${script}`
export const HOP_RAW = 'hop: raw Reference.apply, reused context'
export const HOP_RUNNER = (mode: 'inline' | 'process', script: 'trivial' | 'sequential') => `hop: runner ${mode}, trivial dispatch: ${script}`
export const HOP_HOST = 'hop: host bridge + gate + pipeline, noop'
export const HOP_HOST_SLEPT = 'hop: host bridge + gate + pipeline, noop, after the host thread slept 30 µs'
export const HOP_IN_PLACE = 'hop: runner inline, bridge + gate + pipeline dispatch: sequential'
/** A bare round trip over the worker channel, JSON frames on a socket (`src/ptc/json-frames.ts`): the floor of the worker process's extra hop. */
export const HOP_CHANNEL = 'hop: bare round trip over the worker channel (JSON frames on a socket)'
export const HOP_CHANNEL_PAYLOAD = 'hop: bare round trip over the worker channel, the 64 KB result one way'
/** The same round trips over the other channels measured (`socket-frames.ts`): Node's IPC (the channel until round 13), v8.serialize frames. */
export const HOP_OTHER = (channel: 'ipc' | 'v8', payload: boolean) =>
  `hop: bare round trip over ${channel === 'ipc' ? "Node's IPC (process.send, advanced)" : 'a socket, length-prefixed v8.serialize frames'}${payload ? ', the 64 KB result one way' : ''}`
export const HOP_RUN_CODE_HOST = "hop: run_code's host part for a trivial run (the isolate step answered at once)"
/** Raw's cold run and run_code's host part in a row, as a run has them (the host part's caches as cold as after an isolate). */
export const FLOOR_COLD = "floor: raw cold run, then run_code's host part, in a row"
export const LATENCY = 'process: trivial run, pool refilled'
export const FLOOR_CHANNEL = 'floor: bare round trip over the worker channel after the same pause'
export const FLOOR_RAW = 'floor: raw trivial run on an isolate made ahead, after the same pause'
export const FLOOR_LATENCY = "floor: run_code's host part, a worker channel round trip and that raw run in a row, after the same pause"
/** A fresh isolate made and disposed on this thread: raw isolated-vm's, and the product's with its runtime (`call-path-floors.ts`). */
export const ISOLATE_RAW = 'hop: a fresh isolate, raw (new Isolate, context, a trivial script, dispose)'
export const ISOLATE_RUNTIME = "hop: a fresh isolate with the product's runtime (prepareIsolate from the runtime snapshot, a trivial script, dispose)"
export const FLOOR_COPY = 'floor: canonical copy of the 64 KB result (materializeJson, S6.1/S6.4)'
export const DIRECT = 'pipeline: direct await body(args)'
export const PIPELINE = 'pipeline: tools.execute (3 policies + 1 guard)'

/** CPU by thread of one workload (ms, summed over its `runs`): the host's, and the worker's (process). */
export type WorkloadCpu = Record<string, { host: ThreadCpu; worker: ThreadCpu; runs: number }>

/** What the section measured besides its cases: CPU by thread, and `latency-child.ts`'s medians (ms). */
export interface SummaryInputs {
  workloadCpu: WorkloadCpu
  latency: { idleMs: number; awakeMs: number } | undefined
}

/** CPU µs a call of one thread group in one workload, or undefined when it was not counted. */
function cpuPerCall(inputs: SummaryInputs, name: string, side: 'host' | 'worker', group: keyof ThreadCpu): number | undefined {
  const cpu = inputs.workloadCpu[name]
  return cpu === undefined || cpu.runs === 0 ? undefined : (cpu[side][group] * 1000) / (cpu.runs * CALLS)
}

/**
 * Where a call's CPU goes, by thread (µs a call, over every sample including warm-up, at the
 * kernel's 10 ms tick): each process's main thread, V8's helper threads, and the rest (isolated-vm's
 * isolate threads). In the worker process both main threads also carry the worker channel. A burst of
 * parallel calls is bound by its busiest thread: a call cannot take less wall time than that
 * thread's CPU per call.
 */
function cpuByThread(m: Readonly<Record<string, number>>, inputs: SummaryInputs): string[] {
  const lines = ["  a call's CPU by thread (µs a call; Linux /proc, all samples), beside its wall time:"]
  for (const script of ['sequential', 'parallel'] as const) {
    for (const runner of RUNNERS) {
      const name = caseName(runner, script)
      if (cpuPerCall(inputs, name, 'host', 'main') === undefined) continue
      const part = (side: 'host' | 'worker') =>
        `${side} main ${cpuPerCall(inputs, name, side, 'main')!.toFixed(1)}, ${side} isolate threads ${cpuPerCall(inputs, name, side, 'other')!.toFixed(1)}, ${side} V8 helpers ${cpuPerCall(inputs, name, side, 'v8')!.toFixed(1)}`
      lines.push(`    ${`${script} ${runner}`.padEnd(26)} wall ${(m[name]! / CALLS).toFixed(1).padStart(6)}: ${part('host')}${runner === 'process' || runner.endsWith('worker+host') ? `; ${part('worker')}` : ''}`)
    }
  }
  return lines
}

/**
 * A sequential call inline, whole runs divided by their calls (µs): raw isolated-vm, the runner
 * with a trivial dispatch, the runner with the real bridge, gate and pipeline as the dispatch, and
 * `run_code`. The last three differ only on the host's side, so the third minus the second is what
 * the host part costs in place, between the isolate's steps, beside what it costs alone: back to
 * back in a loop, and after the host's thread slept 30 µs as it does while the isolate works.
 */
function inPlace(m: Readonly<Record<string, number>>): string[] {
  const perCall = (name: string) => m[name]! / CALLS
  const trivial = perCall(HOP_RUNNER('inline', 'sequential'))
  const bridged = perCall(HOP_IN_PLACE)
  return [
    '  a sequential call inline, whole runs / calls (µs):',
    `    raw isolated-vm                                    ${(m[caseName('raw', 'sequential')]! / CALLS).toFixed(1)}`,
    `    runner, trivial dispatch                           ${trivial.toFixed(1)}`,
    `    runner, bridge + gate + pipeline as the dispatch   ${bridged.toFixed(1)}  (the host part in place: ${(bridged - trivial).toFixed(1)}; alone back to back: ${m[HOP_HOST]!.toFixed(1)}; alone after the thread slept 30 µs: ${m[HOP_HOST_SLEPT]!.toFixed(1)})`,
    `    run_code                                           ${(m[caseName('inline', 'sequential')]! / CALLS).toFixed(1)}`,
  ]
}

/**
 * The floor of each per-call target (µs a call, measured in the same run) and what it is made of.
 * Sequential calls and 64 KB results: the product's design with nothing of its own in the isolate
 * or the worker (`raw+host`, `raw-worker+host`: raw isolated-vm whose host function runs this
 * host's bridge, gate and pipeline), whole runs measured as the product's are, so the wake-ups a
 * call costs are counted as they happen (a sum of hops measured alone counted fewer). No floor is
 * printed for parallel calls: the product's batching (calls out of the isolate, settlements into
 * it, answers over the worker channel, 128 at a time) makes a burst about as cheap as raw's, which crosses once a
 * call; their CPU by thread is printed above it ({@link cpuByThread}).
 */
function floors(m: Readonly<Record<string, number>>, perCall: (runner: RunnerName, script: ScriptName) => number): Record<string, { us: number; of: string } | undefined> {
  const design = (script: ScriptName, mode: 'inline' | 'process', parts = '') => {
    // The worker runs a sequential step on its main thread (step-permission.ts): sync-worker+host.
    const runner = mode === 'inline' ? 'raw+host' : 'sync-worker+host'
    const where = mode === 'inline' ? 'in this process' : 'in a worker process driving it from its main thread, each call over the worker channel'
    return { us: perCall(runner, script), of: `raw isolated-vm ${where}, its host function this host's bridge, gate and pipeline${parts}` }
  }
  const copy = `; of it the canonical copy of the result (S6.1/S6.4) ${m[FLOOR_COPY]!.toFixed(0)}`
  // The worker's steps when no other worker is idle: on isolated-vm's own thread.
  const threaded = (script: ScriptName) => `; with each step on isolated-vm's own thread (the worker's steps when no other worker is idle) ${perCall('raw-worker+host', script).toFixed(1)}`
  return {
    'sequential inline': design('sequential', 'inline'),
    'sequential process': design('sequential', 'process', threaded('sequential')),
    // No floor: the product's batching makes a burst about as cheap as raw's one crossing a call.
    'parallel inline': undefined,
    'parallel process': undefined,
    'payload inline': design('payload', 'inline', copy),
    'payload process': design('payload', 'process', `${copy}, a bare channel round trip carrying the 64 KB one way ${m[HOP_CHANNEL_PAYLOAD]!.toFixed(0)}${threaded('payload')}`),
  }
}

/** The hop table and the targets of issue 12 beside the measured values and floors (medians in µs). */
export function summary(m: Readonly<Record<string, number>>, inputs: SummaryInputs): string[] {
  const perCall = (runner: RunnerName, script: ScriptName, calls: number) => (m[caseName(runner, script)]! - m[caseName(runner, 'trivial')]!) / calls
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`
  const rawCall = m[HOP_RAW]! / CALLS
  const runnerCall = (mode: 'inline' | 'process') => (m[HOP_RUNNER(mode, 'sequential')]! - m[HOP_RUNNER(mode, 'trivial')]!) / CALLS
  const host = m[HOP_HOST]!
  const lines = [
    'one sequential call, hop by hop (µs; each hop = a measured case minus the one before it):',
    `  isolate ⇄ host thread (raw Reference.apply round trip)            ${rawCall.toFixed(1)}`,
    `  + runtime, call queue, settle batch (runner inline − raw)          ${(runnerCall('inline') - rawCall).toFixed(1)}`,
    `  + worker main thread ⇄ host channel (runner process − runner inline) ${(runnerCall('process') - runnerCall('inline')).toFixed(1)}`,
    `  + host: bridge, gate, pipeline (measured alone)                    ${host.toFixed(1)}`,
    `  = expected inline ${(runnerCall('inline') + host).toFixed(1)}, process ${(runnerCall('process') + host).toFixed(1)}; measured through run_code: inline ${perCall('inline', 'sequential', CALLS).toFixed(1)}, process ${perCall('process', 'sequential', CALLS).toFixed(1)}`,
    ...inPlace(m),
    ...cpuByThread(m, inputs),
    '',
    `load average now: ${loadavg().map((load) => load.toFixed(2)).join(' / ')} (targets are for a machine at load 1.4–1.7 or idle; compare ratios)`,
    '| issue 12 target | measured (same run) | floor (same run) | target |',
    '| --- | ---: | ---: | ---: |',
  ]
  const row = (what: string, measured: string, floor: string, target: string) => lines.push(`| ${what} | ${measured} | ${floor} | ${target} |`)
  const calls = { sequential: CALLS, parallel: CALLS, payload: PAYLOAD_CALLS, trivial: 1 }
  const raw = (script: ScriptName) => perCall('raw', script, calls[script])
  const floor = floors(m, (runner, script) => perCall(runner, script, calls[script]))
  for (const [script, inline, process] of [
    ['sequential', 1.3, 2],
    ['parallel', 1.5, 2],
    ['payload', 1.3, 1.6],
  ] as const) {
    for (const [mode, target] of [['inline', inline], ['process', process]] as const) {
      const measured = perCall(mode, script, calls[script])
      const bound = floor[`${script} ${mode}`]
      row(
        `${script} µs/call, ${mode}`,
        `${measured.toFixed(1)} (${ratio(measured, raw(script))} raw ${raw(script).toFixed(1)})`,
        bound === undefined ? '—' : `${bound.us.toFixed(1)} (${ratio(bound.us, raw(script))}: ${bound.of})`,
        `≤ ${target}× raw`,
      )
    }
  }
  const cold = (runner: RunnerName) => m[caseName(runner, 'trivial')]! / 1000
  const runCodeHost = m[HOP_RUN_CODE_HOST]! / 1000
  const coldInPlace = m[FLOOR_COLD]! / 1000
  const coldFloor = { inline: coldInPlace, oneWorker: coldInPlace + m[HOP_CHANNEL]! / 1000 }
  const runnerAlone = (mode: 'inline' | 'process') => `runner alone ${(m[HOP_RUNNER(mode, 'trivial')]! / 1000).toFixed(2)}`
  row('cold run ms (fresh isolate, back to back), inline', `${cold('inline').toFixed(2)} (${ratio(cold('inline'), cold('raw'))} raw ${cold('raw').toFixed(2)}; ${runnerAlone('inline')})`, `${coldFloor.inline.toFixed(2)} (${ratio(coldFloor.inline, cold('raw'))}: raw's cold run and run_code's host part in a row, ${(coldInPlace - cold('raw')).toFixed(2)} more than raw; the host part alone back to back ${runCodeHost.toFixed(2)})`, '≤ 1.0× raw')
  // Two workers (PtcConfig.isolateWorkers): each makes its next isolate while the other runs, so
  // the floor of one worker (raw + run_code + a channel round trip) no longer bounds it.
  row('cold run ms, process (two workers)', `${cold('process').toFixed(2)} (${ratio(cold('process'), cold('raw'))} raw; one worker's ${runnerAlone('process')})`, `— (one worker's: ${coldFloor.oneWorker.toFixed(2)}, ${ratio(coldFloor.oneWorker, cold('raw'))}: + bare channel round trip ${(m[HOP_CHANNEL]! / 1000).toFixed(2)})`, '≤ 1.0× raw')
  const ms = (name: string) => (m[name]! / 1000).toFixed(2)
  // Part of both cold runs' floors the floors above leave out: raw has no runtime to put in its isolates.
  const runtimeCost = (m[ISOLATE_RUNTIME]! - m[ISOLATE_RAW]!) / 1000
  row('a fresh isolate ms, made, used for a trivial script and disposed, back to back', `${ms(ISOLATE_RUNTIME)} with the product's runtime`, `${ms(ISOLATE_RAW)} raw: the runtime adds ${runtimeCost.toFixed(2)} to every cold run (its snapshot's heap and its install)`, '—')
  row('trivial run ms, pool refilled, process', ms(LATENCY), `${ms(FLOOR_LATENCY)} (run_code's host part, a worker channel round trip and raw's run on a ready isolate, in a row after the same pause; the last two alone ${ms(FLOOR_CHANNEL)} and ${ms(FLOOR_RAW)})`, '≤ 1.5 ms')
  const { latency } = inputs
  if (latency !== undefined) {
    row('trivial run ms, pool refilled, process, in a process holding only the host', `${latency.idleMs.toFixed(2)}; ${latency.awakeMs.toFixed(2)} with a thread of the host waking every 25 µs (cores never idle)`, '—', '≤ 1.5 ms')
  }
  row('pipeline overhead µs/call (3 policies + 1 guard)', (m[PIPELINE]! - m[DIRECT]!).toFixed(2), '—', '≤ 5 µs (idle machine)')
  return lines
}
