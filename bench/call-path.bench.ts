/**
 * The call path of issue 12, in one section so every number has its baseline in the same run:
 * - the peer harness's workloads through the product in both isolation modes and through raw
 *   isolated-vm (`call-path-fixtures.ts`): cold runs (a fresh isolate each, back to back),
 *   2,000 sequential calls, 2,000 calls in one `Promise.all`, 200 calls with a 64 KB result;
 *   µs/call = (median run − median trivial run of the same runner) / calls, as the harness counts;
 * - one sequential call broken into its hops: the isolate ⇄ host-thread crossing (raw
 *   `Reference.apply` in a reused context), the runtime and runner around it (`runInIsolate`
 *   with a trivial dispatch), the worker process's channel (`IsolateSupervisor`, same dispatch), and
 *   the host's part (bridge, execution gate and the whole pipeline of the `noop` tool), back to
 *   back and after the host's thread slept as it does while the isolate works;
 * - the floors of the 64 KB workload: the canonical copy of the result, and a round trip over
 *   the worker channel carrying it one way (and the same over Node's IPC and v8.serialize frames);
 * - the pipeline alone (3 policies + 1 guard over a direct call), as `pipeline.bench.ts`;
 * - a trivial run after a pause in a process holding only the host (`latency-child.ts`), with the
 *   machine's cores let idle and kept awake by a thread that wakes every 25 µs.
 * The summary (`call-path-summary.ts`) prints each hop and each target of issue 12 beside its
 * measured value and its floor.
 */
import { execFileSync, fork } from 'node:child_process'
import { once } from 'node:events'
import { resolve } from 'node:path'
import ivm from 'isolated-vm'
import { Context } from 'cordis'
import { z } from 'zod'
import { untraced } from '../src/pipeline/cordis-adapter.ts'
import { materializeJson } from '../src/pipeline/materialize.ts'
import { ToolRegistry } from '../src/pipeline/tool-registry.ts'
import { createBridge } from '../src/ptc/bridge.ts'
import type { IsolateRunRequest } from '../src/ptc/isolate/isolate-contract.ts'
import { IsolatePool } from '../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../src/ptc/isolate/isolate-run.ts'
import { IsolateSupervisorGroup } from '../src/ptc/isolate/supervisor-group.ts'
import { ExecutionGate } from '../src/scheduler/execution-gate.ts'
import { defineTool } from '../src/tools/define-tool.ts'
import {
  caseName,
  DIRECT,
  FLOOR_COPY,
  FLOOR_COLD,
  HOP_HOST,
  HOP_HOST_SLEPT,
  HOP_IN_PLACE,
  HOP_CHANNEL,
  HOP_CHANNEL_PAYLOAD,
  HOP_OTHER,
  HOP_RAW,
  HOP_RUN_CODE_HOST,
  HOP_RUNNER,
  LATENCY,
  PIPELINE,
  RUNNERS,
  summary,
  type RunnerName,
  type SummaryInputs,
  type WorkloadCpu,
} from './call-path-summary.ts'
import { bridgeHostCall, CALLS, PAYLOAD, productRunner, rawProcessRunner, rawRunner, type ScriptName, type ScriptRunner } from './call-path-fixtures.ts'
import { section, type BenchCase } from './harness.ts'
import { isolateLifecycleCases, latencyFloorCases, PAUSE_MS } from './call-path-floors.ts'
import { startSocketEcho } from './socket-echo.ts'
import { cpuSince, threadCpu } from './thread-cpu.ts'
import { pipelineBenchRoot, pipelineBody, pipelineCall } from './pipeline.bench.ts'

const COLD_RUNS = 40
const WORKLOADS: { script: ScriptName; iterations: number }[] = [
  { script: 'trivial', iterations: COLD_RUNS },
  { script: 'sequential', iterations: 1 },
  { script: 'parallel', iterations: 1 },
  { script: 'payload', iterations: 1 },
]
let teardown: (() => Promise<void>) | undefined

/** CPU by thread over every sample of a workload (ms), summed: host, and worker (process); keyed by case name. */
const workloadCpu: WorkloadCpu = {}

/** `run` that also adds the CPU each thread group used during it to `workloadCpu[name]`. */
function countingCpu(name: string, workerPids: () => number[], run: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    // Every isolate worker of the host (PtcConfig.isolateWorkers): runs alternate between them.
    const pids = workerPids()
    const before = { host: threadCpu(process.pid), workers: pids.map((pid) => threadCpu(pid)) }
    await run()
    const total = (workloadCpu[name] ??= { host: { main: 0, v8: 0, other: 0 }, worker: { main: 0, v8: 0, other: 0 }, runs: 0 })
    const host = cpuSince(before.host, threadCpu(process.pid))
    const workers = pids.map((pid, index) => cpuSince(before.workers[index]!, threadCpu(pid)))
    for (const group of ['main', 'v8', 'other'] as const) {
      total.host[group] += host[group]
      for (const worker of workers) total.worker[group] += worker[group]
    }
    total.runs++
  }
}

/** `latency-child.ts`'s medians (ms): a trivial run after a pause, cores let idle and kept awake. */
let latency: SummaryInputs['latency']

export const callPath = section(
  'call path (issue 12): peer workloads, hops of one call, targets',
  async () => {
    // In a process of its own, holding only the host: this process's other runners would blur it.
    latency = JSON.parse(execFileSync(process.execPath, ['--no-node-snapshot', resolve(import.meta.dirname, 'latency-child.ts')], { encoding: 'utf8' })) as { idleMs: number; awakeMs: number }
    const inline = await productRunner('inline')
    // Raw isolated-vm in a worker process: the isolate on its own thread (the product's design), and driven from the child's main thread.
    const children = { 'raw-worker+host': await rawProcessRunner(bridgeHostCall(inline.host)), 'sync-worker+host': await rawProcessRunner(bridgeHostCall(inline.host), 'sync') }
    const runners: Record<RunnerName, ScriptRunner> = { raw: rawRunner(), inline, process: await productRunner('process'), 'raw+host': rawRunner(bridgeHostCall(inline.host)), ...children }
    const workerPids = (runner: RunnerName): number[] => (runner === 'process' ? workerPidsOf(runners.process) : [children[runner as keyof typeof children]?.pid].filter((pid) => pid !== undefined))
    const cases: BenchCase[] = []
    for (const { script, iterations } of WORKLOADS) {
      for (const runner of RUNNERS) {
        const run = () => runners[runner].run(script)
        const counted = script === 'sequential' || script === 'parallel' ? countingCpu(caseName(runner, script), () => workerPids(runner), run) : run
        cases.push({ name: caseName(runner, script), run: counted, iterations, ...(runner === 'raw' && script === 'trivial' && { baseline: true }) })
      }
    }
    cases.push({ name: LATENCY, run: () => runners.process.run('trivial'), pause: () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS)), iterations: 10 })
    const hops = await hopCases()
    const hostPart = await runCodeHostCase()
    cases.push(...latencyFloorCases(hops.roundTrip, hostPart.runner), ...isolateLifecycleCases())
    cases.push({
      name: FLOOR_COLD,
      run: async () => {
        await runners.raw.run('trivial')
        await hostPart.runner.run('trivial')
      },
      iterations: COLD_RUNS,
    })
    const pipeline = await pipelineCases()
    teardown = async () => {
      for (const runner of [...Object.values(runners), hostPart.runner]) await runner.close()
      await hops.close()
    }
    return [...cases, ...hops.cases, hostPart.case, ...pipeline]
  },
  { samples: 5, iterations: 1, warmup: 1, warmupRounds: 2, summary: (m) => summary(m, { workloadCpu, latency }) },
)
Object.defineProperty(callPath, 'teardown', { get: () => teardown })

/** The hops of one sequential call (see the file comment). */
async function hopCases(): Promise<{ cases: BenchCase[]; roundTrip: () => Promise<unknown>; close: () => Promise<void> }> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = await isolate.createContext()
  await context.global.set('hostCall', new ivm.Reference(async (json: string) => json))
  const raw = await isolate.compileScript(`(async () => { for (let i = 0; i < ${CALLS}; i++) JSON.parse(await hostCall.apply(undefined, [JSON.stringify({ i })], { arguments: { copy: true }, result: { promise: true, copy: true } })) })()`)
  const pool = new IsolatePool({ size: 2 })
  // Two workers, both ready, as a host's after its first runs: a sequential step then runs on
  // its worker's main thread (step-permission.ts), as the product's do.
  const supervisor = new IsolateSupervisorGroup({ poolSize: 2, spreadFromRun: 1 })
  await supervisor.run({ js: 'return 1', toolNames: [], dispatch: async () => ({ ok: false, message: 'none' }) })
  while (supervisor.readyWorkers < 2) await new Promise((resolve) => setTimeout(resolve, 10))
  const request = (js: string): IsolateRunRequest => ({ js, toolNames: ['noop'], limits: { maxToolCalls: CALLS + 10 }, dispatch: async (call) => ({ ok: true, valueJson: call.argsJson }) })
  const scripts = { trivial: request('return 1'), sequential: request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i })\nreturn 1`) }
  const check = async (result: Promise<{ status: string; error?: unknown }>) => {
    const { status, error } = await result
    if (status !== 'ok') throw new Error(`hop bench run failed: ${status} ${JSON.stringify(error)}`)
  }
  const root = new Context()
  await root.plugin(ToolRegistry)
  await root.plugin({ name: 'bench-hop-tools', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(noopTool()) })
  // The registry as the PTC service holds it (src/ptc/ptc-service.ts): without cordis' tracing proxy.
  const dispatch = createBridge({ ctx: root, tools: untraced(root.tools), visible: new Set(['noop']), parentToken: Symbol('bench'), parentCallId: 'bench', agent: 'bench', gate: new ExecutionGate() })
  const signal = new AbortController().signal
  let pairing = 0
  // The floor of the worker process's extra hop: one dispatch-sized message there and back
  // between two processes doing nothing else, over the worker channel (JSON frames on a socket),
  // and for comparison over Node's IPC (the channel until round 13) and v8.serialize frames.
  const echo = fork(resolve(import.meta.dirname, 'ipc-echo-child.ts'), [], { serialization: 'advanced', execArgv: [] })
  await once(echo, 'spawn')
  const message = { type: 'dispatch', runId: 'bench', pairingId: 'bench:1', name: 'noop', argsJson: '{"i":1}' }
  const ipcRoundTrip = (sent: object = message) => new Promise<unknown>((answered) => void echo.once('message', answered).send(sent))
  // The answer a call with the 64 KB result gets (the supervisor's answer message, as JSON text).
  const prime = { type: 'prime', reply: { type: 'answers', answers: [['bench', 'bench:1', 1, JSON.stringify(PAYLOAD.obj)]] } }
  echo.send(prime)
  const payloadRequest = { type: 'reply' }
  const sockets = { json: await startSocketEcho('json'), v8: await startSocketEcho('v8') }
  for (const socket of Object.values(sockets)) socket.send(prime)
  const roundTrip = () => sockets.json.roundTrip(message)
  const bridgeCall = async () => {
    const answer = await dispatch({ pairingId: `b:${pairing++}`, name: 'noop', argsJson: '{"i":1}', signal })
    if (!answer.ok) throw new Error(`bridge failed: ${answer.message}`)
  }
  // The host's thread sleeps while the isolate works: the same call after such a sleep.
  const sleeper = new Int32Array(new SharedArrayBuffer(4))
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
    { name: HOP_CHANNEL, run: roundTrip, iterations: 2_000 },
    { name: HOP_CHANNEL_PAYLOAD, run: () => sockets.json.roundTrip(payloadRequest), iterations: 200 },
    { name: HOP_OTHER('ipc', false), run: () => ipcRoundTrip(), iterations: 2_000 },
    { name: HOP_OTHER('ipc', true), run: () => ipcRoundTrip(payloadRequest), iterations: 200 },
    { name: HOP_OTHER('v8', false), run: () => sockets.v8.roundTrip(message), iterations: 2_000 },
    { name: HOP_OTHER('v8', true), run: () => sockets.v8.roundTrip(payloadRequest), iterations: 200 },
    { name: HOP_HOST, run: bridgeCall, iterations: 5_000 },
    { name: HOP_HOST_SLEPT, run: bridgeCall, pause: () => Atomics.wait(sleeper, 0, 0, 0.03), iterations: 2_000 },
    { name: FLOOR_COPY, run: () => materializeJson(PAYLOAD.obj), iterations: 200 },
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
      for (const socket of Object.values(sockets)) socket.close()
    },
  }
}

/**
 * What a cold run costs the host besides its isolate: the `run_code` call through the registry's
 * pipeline, the compile-cache lookup, and the result's checks and canonical copy (a trivial script
 * makes no calls), with the isolate step (the service's `runInIsolation`) answering at once, as an
 * isolate that cost nothing would. Measured back to back, so a lower bound of what it costs in a
 * cold run. The floor of the product's cold run is raw isolated-vm's cold run and this in a row
 * (`FLOOR_COLD`): after an isolate's creation and disposal the host part's caches are cold, and
 * it costs several times what it costs back to back (issue 12, round 20's timestamps).
 */
async function runCodeHostCase(): Promise<{ case: BenchCase; runner: ScriptRunner }> {
  const runner = await productRunner('inline')
  const service = untraced(runner.host.ctx.ptc) as unknown as { runInIsolation: (request: IsolateRunRequest) => Promise<unknown> }
  service.runInIsolation = async () => ({ status: 'ok', value: 2, logs: [], toolCalls: 0, durationMs: 0 })
  return { case: { name: HOP_RUN_CODE_HOST, run: () => runner.run('trivial'), iterations: 200 }, runner }
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

/** The worker processes' pids of a product runner (`isolation: 'process'`), read where the host keeps them. */
function workerPidsOf(runner: ScriptRunner): number[] {
  return (runner as ScriptRunner & { host?: { ctx: { ptc: { _supervisor?: { workerPids: number[] } } } } }).host?.ctx.ptc._supervisor?.workerPids ?? []
}

