/**
 * The call path of issue 12, in one section so every number has its baseline in the same run:
 * - the peer harness's workloads through the product in both isolation modes and through raw
 *   isolated-vm (`call-path-fixtures.ts`): cold runs (a fresh isolate each, back to back),
 *   2,000 sequential calls, 2,000 calls in one `Promise.all`, 200 calls with a 64 KB result;
 *   µs/call = (median run − median trivial run of the same runner) / calls, as the harness counts;
 * - one sequential call broken into its hops: the isolate ⇄ host-thread crossing (raw
 *   `Reference.apply` in a reused context), the runtime and runner around it (`runInIsolate`
 *   with a trivial dispatch), the worker process's IPC (`IsolateSupervisor`, same dispatch), and
 *   the host's part (bridge, execution gate and the whole pipeline of the `noop` tool);
 * - the pipeline alone (3 policies + 1 guard over a direct call), as `pipeline.bench.ts`;
 * - a trivial run after a pause in a process holding only the host (`latency-child.ts`), with the
 *   machine's cores let idle and kept awake by a thread that wakes every 25 µs.
 * The summary prints each hop and each target of issue 12 beside its measured value.
 */
import { execFileSync, fork } from 'node:child_process'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import ivm from 'isolated-vm'
import { Context } from 'cordis'
import { z } from 'zod'
import { ToolRegistry } from '../src/pipeline/tool-registry.ts'
import { createBridge } from '../src/ptc/bridge.ts'
import type { IsolateRunRequest } from '../src/ptc/isolate/isolate-contract.ts'
import { IsolatePool } from '../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../src/ptc/isolate/isolate-run.ts'
import { IsolateSupervisor } from '../src/ptc/isolate/isolate-supervisor.ts'
import { ExecutionGate } from '../src/scheduler/execution-gate.ts'
import { defineTool } from '../src/tools/define-tool.ts'
import { CALLS, PAYLOAD_CALLS, productRunner, rawRunner, type ScriptName, type ScriptRunner } from './call-path-fixtures.ts'
import { section, type BenchCase } from './harness.ts'
import { cpuSince, threadCpu, type ThreadCpu } from './thread-cpu.ts'
import { pipelineBenchRoot, pipelineBody, pipelineCall } from './pipeline.bench.ts'

const COLD_RUNS = 40
const PAUSE_MS = 50
const RUNNERS = ['raw', 'inline', 'process'] as const
type RunnerName = (typeof RUNNERS)[number]
const WORKLOADS: { script: ScriptName; iterations: number }[] = [
  { script: 'trivial', iterations: COLD_RUNS },
  { script: 'sequential', iterations: 1 },
  { script: 'parallel', iterations: 1 },
  { script: 'payload', iterations: 1 },
]
const caseName = (runner: RunnerName, script: ScriptName) => `${runner}: ${script}`
const HOP_RAW = 'hop: raw Reference.apply, reused context'
const HOP_RUNNER = (mode: 'inline' | 'process', script: 'trivial' | 'sequential') => `hop: runner ${mode}, trivial dispatch: ${script}`
const HOP_HOST = 'hop: host bridge + gate + pipeline, noop'
const HOP_IN_PLACE = 'hop: runner inline, bridge + gate + pipeline dispatch: sequential'
const HOP_IPC = 'hop: bare IPC round trip (process.send, advanced)'
const LATENCY = 'process: trivial run, pool refilled'
const FLOOR_IPC = 'floor: bare IPC round trip after the same pause'
const FLOOR_RAW = 'floor: raw trivial run on an isolate made ahead, after the same pause'
const DIRECT = 'pipeline: direct await body(args)'
const PIPELINE = 'pipeline: tools.execute (3 policies + 1 guard)'

let teardown: (() => Promise<void>) | undefined

/** CPU by thread over every sample of a workload (ms), summed: host, and worker (process); keyed by case name. */
const workloadCpu: Record<string, { host: ThreadCpu; worker: ThreadCpu; runs: number }> = {}

/** `run` that also adds the CPU each thread group used during it to `workloadCpu[name]`. */
function countingCpu(name: string, workerPid: () => number | undefined, run: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    const pid = workerPid()
    const before = { host: threadCpu(process.pid), worker: pid === undefined ? undefined : threadCpu(pid) }
    await run()
    const total = (workloadCpu[name] ??= { host: { main: 0, v8: 0, other: 0 }, worker: { main: 0, v8: 0, other: 0 }, runs: 0 })
    const host = cpuSince(before.host, threadCpu(process.pid))
    const worker = pid === undefined || before.worker === undefined ? { main: 0, v8: 0, other: 0 } : cpuSince(before.worker, threadCpu(pid))
    for (const group of ['main', 'v8', 'other'] as const) {
      total.host[group] += host[group]
      total.worker[group] += worker[group]
    }
    total.runs++
  }
}

/** `latency-child.ts`'s medians (ms): a trivial run after a pause, cores let idle and kept awake. */
let latency: { idleMs: number; awakeMs: number } | undefined

export const callPath = section(
  'call path (issue 12): peer workloads, hops of one call, targets',
  async () => {
    // In a process of its own, holding only the host: this process's other runners would blur it.
    latency = JSON.parse(execFileSync(process.execPath, ['--no-node-snapshot', resolve(import.meta.dirname, 'latency-child.ts')], { encoding: 'utf8' })) as { idleMs: number; awakeMs: number }
    const runners: Record<RunnerName, ScriptRunner> = { raw: rawRunner(), inline: await productRunner('inline'), process: await productRunner('process') }
    const cases: BenchCase[] = []
    for (const { script, iterations } of WORKLOADS) {
      for (const runner of RUNNERS) {
        const run = () => runners[runner].run(script)
        const counted = script === 'sequential' || script === 'parallel' ? countingCpu(caseName(runner, script), () => (runner === 'process' ? workerPidOf(runners.process) : undefined), run) : run
        cases.push({ name: caseName(runner, script), run: counted, iterations, ...(runner === 'raw' && script === 'trivial' && { baseline: true }) })
      }
    }
    cases.push({ name: LATENCY, run: () => runners.process.run('trivial'), pause: () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS)), iterations: 10 })
    const hops = await hopCases()
    cases.push(...latencyFloorCases(hops.roundTrip))
    const pipeline = await pipelineCases()
    teardown = async () => {
      for (const runner of Object.values(runners)) await runner.close()
      await hops.close()
    }
    return [...cases, ...hops.cases, ...pipeline]
  },
  { samples: 5, iterations: 1, warmup: 1, summary },
)
Object.defineProperty(callPath, 'teardown', { get: () => teardown })

/** The hops of one sequential call (see the file comment). */
async function hopCases(): Promise<{ cases: BenchCase[]; roundTrip: () => Promise<unknown>; close: () => Promise<void> }> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = await isolate.createContext()
  await context.global.set('hostCall', new ivm.Reference(async (json: string) => json))
  const raw = await isolate.compileScript(`(async () => { for (let i = 0; i < ${CALLS}; i++) JSON.parse(await hostCall.apply(undefined, [JSON.stringify({ i })], { arguments: { copy: true }, result: { promise: true, copy: true } })) })()`)
  const pool = new IsolatePool({ size: 2 })
  const supervisor = new IsolateSupervisor({ poolSize: 2 })
  await supervisor.prewarm()
  const request = (js: string): IsolateRunRequest => ({ js, toolNames: ['noop'], limits: { maxToolCalls: CALLS + 10 }, dispatch: async (call) => ({ ok: true, valueJson: call.argsJson }) })
  const scripts = { trivial: request('return 1'), sequential: request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i })\nreturn 1`) }
  const check = async (result: Promise<{ status: string; error?: unknown }>) => {
    const { status, error } = await result
    if (status !== 'ok') throw new Error(`hop bench run failed: ${status} ${JSON.stringify(error)}`)
  }
  const root = new Context()
  await root.plugin(ToolRegistry)
  await root.plugin({ name: 'bench-hop-tools', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(noopTool()) })
  const dispatch = createBridge({ ctx: root, tools: root.tools, visible: new Set(['noop']), parentToken: Symbol('bench'), parentCallId: 'bench', agent: 'bench', gate: new ExecutionGate() })
  const signal = new AbortController().signal
  let pairing = 0
  // The floor of the worker process's extra hop: one dispatch-sized message there and back
  // between two processes doing nothing else, as the supervisor's channel sends it.
  const echo = fork(resolve(import.meta.dirname, 'ipc-echo-child.ts'), [], { serialization: 'advanced', execArgv: [] })
  await once(echo, 'spawn')
  const message = { type: 'dispatch', runId: 'bench', pairingId: 'bench:1', name: 'noop', argsJson: '{"i":1}' }
  const roundTrip = () => new Promise<unknown>((answered) => {
    echo.once('message', answered)
    echo.send(message)
  })
  const cases: BenchCase[] = [
    { name: HOP_RAW, run: () => raw.run(context, { promise: true }) },
    ...(['inline', 'process'] as const).flatMap((mode) =>
      (['trivial', 'sequential'] as const).map((script) => ({
        name: HOP_RUNNER(mode, script),
        run: () => check(mode === 'inline' ? runInIsolate(scripts[script], pool) : supervisor.run(scripts[script])),
        iterations: script === 'trivial' ? 20 : 1,
      })),
    ),
    // The same host part as HOP_HOST, but as a run meets it: between the isolate's steps.
    { name: HOP_IN_PLACE, run: () => check(runInIsolate({ ...scripts.sequential, dispatch }, pool)), iterations: 1 },
    { name: HOP_IPC, run: roundTrip, iterations: 2_000 },
    {
      name: HOP_HOST,
      run: async () => {
        const answer = await dispatch({ pairingId: `b:${pairing++}`, name: 'noop', argsJson: '{"i":1}', signal })
        if (!answer.ok) throw new Error(`bridge failed: ${answer.message}`)
      },
      iterations: 5_000,
    },
  ]
  return {
    cases,
    roundTrip,
    async close() {
      context.release()
      isolate.dispose()
      pool.dispose()
      supervisor.dispose()
      echo.disconnect()
    },
  }
}

/**
 * The floor of the trivial-run latency (a run after a pause, as model turns come): the same pause,
 * then what no implementation of a run in a worker process can skip. One IPC message there and
 * back (both processes asleep, as the host and the worker are between turns) and, on an isolate
 * and context made during the pause, raw isolated-vm's compile and run of `return 1 + 1`.
 */
function latencyFloorCases(roundTrip: () => Promise<unknown>): BenchCase[] {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
  let ahead: { isolate: ivm.Isolate; context: ivm.Context } | undefined
  return [
    { name: FLOOR_IPC, run: roundTrip, pause: sleep, iterations: 10 },
    {
      name: FLOOR_RAW,
      pause: async () => {
        const isolate = new ivm.Isolate({ memoryLimit: 128 })
        ahead = { isolate, context: isolate.createContextSync() }
        await sleep()
      },
      run: async () => {
        const { isolate, context } = ahead!
        const script = isolate.compileScriptSync('(async () => 1 + 1)().then(JSON.stringify)')
        if ((await script.run(context, { promise: true })) !== '2') throw new Error('raw trivial run failed')
        isolate.dispose()
      },
      iterations: 10,
    },
  ]
}

/** As `pipeline.bench.ts`: the no-op tool with 3 pass-through pre-execute policies and 1 guard. */
async function pipelineCases(): Promise<BenchCase[]> {
  const tools = (await pipelineBenchRoot()).tools
  const { arguments: args } = pipelineCall
  return [
    { name: DIRECT, run: () => pipelineBody(args), iterations: 20_000 },
    { name: PIPELINE, run: () => tools.execute(pipelineCall), iterations: 20_000 },
  ]
}

function noopTool() {
  return defineTool({
    name: 'noop',
    description: 'Answers { i }.',
    parameters: z.looseObject({}),
    output: { schema: z.unknown(), render: () => [{ type: 'text', text: 'noop' }] },
    isConcurrencySafe: () => true,
    execute: (args) => ({ i: (args as { i?: number }).i ?? null }),
  })
}

/** The worker process's pid of a product runner (`isolation: 'process'`), read where the host keeps it. */
function workerPidOf(runner: ScriptRunner): number | undefined {
  return (runner as ScriptRunner & { host?: { ctx: { ptc: { _supervisor?: { workerPid?: number } } } } }).host?.ctx.ptc._supervisor?.workerPid
}

/**
 * Where a call's CPU goes, by thread (µs a call, over every sample including warm-up, at the
 * kernel's 10 ms tick): each process's main thread, V8's helper threads, and the rest (isolated-vm's
 * isolate threads). In the worker process both main threads also carry the IPC. A burst of
 * parallel calls is bound by its busiest thread: a call cannot take less wall time than that
 * thread's CPU per call.
 */
function cpuByThread(m: Readonly<Record<string, number>>): string[] {
  const lines = ["  a call's CPU by thread (µs a call; Linux /proc, all samples), beside its wall time:"]
  for (const script of ['sequential', 'parallel'] as const) {
    for (const runner of RUNNERS) {
      const cpu = workloadCpu[caseName(runner, script)]
      if (cpu === undefined || cpu.runs === 0) continue
      const perCall = (ms: number) => ((ms * 1000) / (cpu.runs * CALLS)).toFixed(1)
      const hostPart = `host main ${perCall(cpu.host.main)}, host isolate threads ${perCall(cpu.host.other)}, host V8 helpers ${perCall(cpu.host.v8)}`
      const workerPart = runner === 'process' ? `; worker main ${perCall(cpu.worker.main)}, worker isolate threads ${perCall(cpu.worker.other)}, worker V8 helpers ${perCall(cpu.worker.v8)}` : ''
      lines.push(`    ${`${script} ${runner}`.padEnd(18)} wall ${(m[caseName(runner, script)]! / CALLS).toFixed(1).padStart(6)}: ${hostPart}${workerPart}`)
    }
  }
  return lines
}

/**
 * A sequential call inline, whole runs divided by their calls (µs): raw isolated-vm, the runner
 * with a trivial dispatch, the runner with the real bridge, gate and pipeline as the dispatch, and
 * `run_code`. The last three differ only on the host's side, so the third minus the second is what
 * the host part costs in place, between the isolate's steps, beside what it costs alone in a loop.
 */
function inPlace(m: Readonly<Record<string, number>>): string[] {
  const perCall = (name: string) => m[name]! / CALLS
  const trivial = perCall(HOP_RUNNER('inline', 'sequential'))
  const bridged = perCall(HOP_IN_PLACE)
  return [
    '  a sequential call inline, whole runs / calls (µs):',
    `    raw isolated-vm                                    ${(m[caseName('raw', 'sequential')]! / CALLS).toFixed(1)}`,
    `    runner, trivial dispatch                           ${trivial.toFixed(1)}`,
    `    runner, bridge + gate + pipeline as the dispatch   ${bridged.toFixed(1)}  (the host part in place: ${(bridged - trivial).toFixed(1)}; alone in a loop: ${m[HOP_HOST]!.toFixed(1)})`,
    `    run_code                                           ${(m[caseName('inline', 'sequential')]! / CALLS).toFixed(1)}`,
  ]
}

/** The hop table and the targets of issue 12 beside the measured values (medians in µs). */
function summary(m: Readonly<Record<string, number>>): string[] {
  const perCall = (runner: RunnerName, script: ScriptName, calls: number) => (m[caseName(runner, script)]! - m[caseName(runner, 'trivial')]!) / calls
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`
  const rawCall = m[HOP_RAW]! / CALLS
  const runnerCall = (mode: 'inline' | 'process') => (m[HOP_RUNNER(mode, 'sequential')]! - m[HOP_RUNNER(mode, 'trivial')]!) / CALLS
  const host = m[HOP_HOST]!
  const lines = [
    'one sequential call, hop by hop (µs; each hop = a measured case minus the one before it):',
    `  isolate ⇄ host thread (raw Reference.apply round trip)            ${rawCall.toFixed(1)}`,
    `  + runtime, call queue, settle batch (runner inline − raw)          ${(runnerCall('inline') - rawCall).toFixed(1)}`,
    `  + worker main thread ⇄ host IPC (runner process − runner inline)  ${(runnerCall('process') - runnerCall('inline')).toFixed(1)}`,
    `  + host: bridge, gate, pipeline (measured alone)                    ${host.toFixed(1)}`,
    `  = expected inline ${(runnerCall('inline') + host).toFixed(1)}, process ${(runnerCall('process') + host).toFixed(1)}; measured through run_code: inline ${perCall('inline', 'sequential', CALLS).toFixed(1)}, process ${perCall('process', 'sequential', CALLS).toFixed(1)}`,
    `  floor of the worker process's extra hop: a bare IPC round trip between two idle processes ${m[HOP_IPC]!.toFixed(1)}, so a sequential call there costs at least (raw + IPC) / raw = ${((perCall('raw', 'sequential', CALLS) + m[HOP_IPC]!) / perCall('raw', 'sequential', CALLS)).toFixed(2)}× raw's sequential call (${perCall('raw', 'sequential', CALLS).toFixed(1)}) before any work`,
    ...inPlace(m),
    ...cpuByThread(m),
    `  a parallel call inline adds the host's part (${host.toFixed(1)} alone) to the host's main thread, which raw's burst already keeps busy (CPU by thread above)`,
    '',
    `load average now: ${loadavg().map((load) => load.toFixed(2)).join(' / ')} (targets are for a machine at load 1.4–1.7 or idle; compare ratios)`,
    '| issue 12 target | measured (same run) | target |',
    '| --- | ---: | ---: |',
  ]
  const row = (what: string, measured: string, target: string) => lines.push(`| ${what} | ${measured} | ${target} |`)
  for (const [script, calls, inline, process] of [
    ['sequential', CALLS, 1.3, 2],
    ['parallel', CALLS, 1.5, 2],
    ['payload', PAYLOAD_CALLS, 1.3, 1.6],
  ] as const) {
    const raw = perCall('raw', script, calls)
    row(`${script} µs/call, inline`, `${perCall('inline', script, calls).toFixed(1)} (${ratio(perCall('inline', script, calls), raw)} raw ${raw.toFixed(1)})`, `≤ ${inline}× raw`)
    row(`${script} µs/call, process`, `${perCall('process', script, calls).toFixed(1)} (${ratio(perCall('process', script, calls), raw)} raw)`, `≤ ${process}× raw`)
  }
  const cold = (runner: RunnerName) => m[caseName(runner, 'trivial')]! / 1000
  row('cold run ms (fresh isolate, back to back), inline', `${cold('inline').toFixed(2)} (${ratio(cold('inline'), cold('raw'))} raw ${cold('raw').toFixed(2)})`, '≤ 1.0× raw')
  row('cold run ms, process', `${cold('process').toFixed(2)} (${ratio(cold('process'), cold('raw'))} raw)`, '≤ 1.0× raw')
  const floor = (m[FLOOR_IPC]! + m[FLOOR_RAW]!) / 1000
  row('trivial run ms, pool refilled, process', `${(m[LATENCY]! / 1000).toFixed(2)} (floor ${floor.toFixed(2)}: IPC round trip ${(m[FLOOR_IPC]! / 1000).toFixed(2)} + raw run on a ready isolate ${(m[FLOOR_RAW]! / 1000).toFixed(2)}, each after the same pause)`, '≤ 1.5 ms')
  if (latency !== undefined) {
    row('trivial run ms, pool refilled, process, in a process holding only the host', `${latency.idleMs.toFixed(2)}; ${latency.awakeMs.toFixed(2)} with a thread of the host waking every 25 µs (cores never idle)`, '≤ 1.5 ms')
  }
  row('pipeline overhead µs/call (3 policies + 1 guard)', (m[PIPELINE]! - m[DIRECT]!).toFixed(2), '≤ 5 µs (idle machine)')
  return lines
}
