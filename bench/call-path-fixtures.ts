/**
 * What the call-path bench sections (`call-path.bench.ts`) measure against: the peer harness's
 * workloads (`bench-peers`, issue 12), run through the product as its `ours` / `ours-inline`
 * adapters do (`createHost`, type-checking off, the `run_code` tool through the registry), and
 * through raw isolated-vm as its `isolated-vm-raw` adapter does (a fresh isolate per run, one
 * `Reference.apply` per call, JSON strings both ways). Same scripts, same tools, same process, so
 * the ratios compare like the harness's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import { createHost, defineTool, type Host } from '../src/index.ts'
import { runRawIsolate } from './raw-isolate.ts'
import { untraced } from '../src/pipeline/cordis-adapter.ts'
import { createBridge } from '../src/ptc/bridge.ts'
import { startWorker } from '../src/ptc/worker-channel.ts'
import { ExecutionGate } from '../src/scheduler/execution-gate.ts'

/** Calls per run of the sequential and parallel workloads (the harness's W2, W3). */
export const CALLS = 2_000
/** Calls per run of the 64 KB workload (the harness's W4). */
export const PAYLOAD_CALLS = 200

/** The harness's 64 KB tool result: `{ records: [...] }` of 65,520 bytes of JSON, and its values' sum. */
export const PAYLOAD = makePayload(64 * 1024)

function makePayload(targetBytes: number): { obj: { records: object[] }; sum: number } {
  const records: { id: number; name: string; value: number; active: boolean; tags: string[] }[] = []
  let size = '{"records":[]}'.length
  for (let n = 0; ; n++) {
    const record = { id: n, name: `item-${String(n).padStart(6, '0')}`, value: (n * 7) % 101, active: n % 2 === 0, tags: ['alpha', 'beta'] }
    const add = JSON.stringify(record).length + (n ? 1 : 0)
    if (size + add > targetBytes) break
    records.push(record)
    size += add
  }
  return { obj: { records }, sum: records.reduce((sum, record) => sum + record.value, 0) }
}

/** The harness's host tools: `noop` answers `{ i }`, `payload` the 64 KB object. */
export const HOST_TOOLS: Record<string, (args: { i?: number }) => Promise<unknown>> = {
  noop: async (args) => ({ i: args?.i ?? null }),
  payload: async () => PAYLOAD.obj,
}

/** The harness's scripts (bodies of an async function) and what each returns. */
export const SCRIPTS = {
  trivial: { code: 'return 1 + 1', expect: 2 },
  sequential: { code: `let s = 0;\nfor (let i = 0; i < ${CALLS}; i++) { const r = await tools.noop({ i }); s += r.i; }\nreturn s;`, expect: (CALLS * (CALLS - 1)) / 2 },
  parallel: { code: `const ps = [];\nfor (let i = 0; i < ${CALLS}; i++) ps.push(tools.noop({ i }));\nconst rs = await Promise.all(ps);\nlet s = 0; for (const r of rs) s += r.i;\nreturn s;`, expect: (CALLS * (CALLS - 1)) / 2 },
  payload: { code: `let s = 0;\nfor (let k = 0; k < ${PAYLOAD_CALLS}; k++) { const r = await tools.payload({ k }); for (const rec of r.records) s += rec.value; }\nreturn s;`, expect: PAYLOAD_CALLS * PAYLOAD.sum },
} as const

export type ScriptName = keyof typeof SCRIPTS

/** Something that runs a harness script and checks its value. */
export interface ScriptRunner {
  run(script: ScriptName): Promise<void>
  close(): Promise<void>
}

function expectValue(script: ScriptName, value: unknown, who: string): void {
  if (value !== SCRIPTS[script].expect) throw new Error(`${who}: ${script} returned ${JSON.stringify(value)}, expected ${SCRIPTS[script].expect}`)
}

/**
 * Registers `tools` on `host` as the harness's `ours` adapters do: permissive schemas (any
 * object in, any value out), a one-line render, and concurrency-safe, so calls from
 * `Promise.all` may overlap.
 */
export async function registerHarnessTools(host: Host, tools: Record<string, (args: never) => Promise<unknown>>): Promise<void> {
  await host.ctx.plugin({
    name: 'bench-harness-tools',
    inject: ['tools'],
    apply(ctx) {
      for (const [name, body] of Object.entries(tools)) {
        ctx.tools.register(
          defineTool({
            name,
            description: `bench tool ${name}`,
            parameters: z.looseObject({}),
            output: { schema: z.unknown(), render: () => [{ type: 'text', text: name }] },
            isConcurrencySafe: () => true,
            execute: (args) => body(args as never) as never,
          }),
        )
      }
    },
  })
}

/** The product as the harness's `ours` (`'process'`) and `ours-inline` adapters wire it. */
export async function productRunner(isolation: 'process' | 'inline'): Promise<ScriptRunner & { host: Host }> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ptc-bench-calls-'))
  const host = await createHost({ workspace, journal: false, ptc: { typecheck: false, ...(isolation === 'inline' && { isolation: 'inline' }), limits: { maxToolCalls: 100_000 } } })
  await registerHarnessTools(host, HOST_TOOLS)
  const execute = async (code: string): Promise<unknown> => {
    const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'bench' })
    const value = result.value as { status?: string; value?: unknown; error?: unknown } | undefined
    if (result.isError || value?.status !== 'ok') throw new Error(`run_code (${isolation}) failed: ${JSON.stringify(value?.error ?? result.error)}`)
    return value.value
  }
  await execute('return 1') // the worker's start-up is not a call's cost
  return {
    host,
    run: async (script) => expectValue(script, await execute(SCRIPTS[script].code), `ours (${isolation})`),
    async close() {
      await host.dispose()
      rmSync(workspace, { recursive: true, force: true })
    },
  }
}

/** What raw isolated-vm's host function does with a call: the tool's JSON answer. */
export type RawHostCall = (name: string, argsJson: string) => Promise<string>

const callHostTool: RawHostCall = async (name, argsJson) => {
  const value = await HOST_TOOLS[name]!(JSON.parse(argsJson) as { i?: number })
  return value === undefined ? 'null' : JSON.stringify(value)
}

/**
 * A {@link RawHostCall} that answers as the product's host answers a call from code: `host`'s
 * bridge, execution gate and whole pipeline, made as `run_code` makes them for a run
 * (`src/ptc/ptc-service.ts`). Raw isolated-vm with this host function is the product's design
 * with nothing of its own inside the isolate or the worker: the floor of that design (issue 12).
 * @throws Error (as the call's rejection) when the tool call fails.
 */
export function bridgeHostCall(host: Host): RawHostCall {
  const ctx = host.ctx
  const dispatch = createBridge({ ctx, tools: untraced(ctx.tools), visible: new Set(Object.keys(HOST_TOOLS)), parentToken: Symbol('bench'), parentCallId: 'bench', agent: 'bench', gate: new ExecutionGate() })
  const signal = new AbortController().signal
  let pairing = 0
  return async (name, argsJson) => {
    const answer = await dispatch({ pairingId: `raw:${pairing++}`, name, argsJson, signal })
    if (!answer.ok) throw new Error(answer.message)
    return answer.valueJson
  }
}

/**
 * Raw isolated-vm as the harness's `isolated-vm-raw` adapter: a new isolate per run, disposed
 * after it. `hostCall` answers each call (default: the tool itself, as the harness does).
 */
export function rawRunner(hostCall: RawHostCall = callHostTool): ScriptRunner {
  return {
    async run(script) {
      const json = await runRawIsolate(SCRIPTS[script].code, Object.keys(HOST_TOOLS), hostCall)
      expectValue(script, json === undefined ? undefined : JSON.parse(json), 'raw isolated-vm')
    },
    close: async () => {},
  }
}

/** Raw isolated-vm in a worker process: a {@link ScriptRunner}, its pid, and any code with any host function. */
export interface RawProcessRunner extends ScriptRunner {
  pid: number | undefined
  /**
   * Runs `code` (the body of an async function) there with `tools.<name>` for each of `names`,
   * each call answered by `hostCall` (a rejection reaches the script as the call's rejection);
   * one run at a time. Resolves to the JSON of what it returned.
   * @throws Error when the script throws (a failed call it does not catch, too) or the child exits.
   */
  runCode(code: string, names: readonly string[], hostCall: RawHostCall): Promise<string | undefined>
}

/**
 * Raw isolated-vm in a worker process (`raw-worker-child.ts`): each call crosses the product's
 * worker channel (`startWorker`'s `channel: 'frames'`) to this process, where `hostCall` answers
 * it. The floor of the product's default design, with `hostCall` doing the product's host part
 * (issue 12). With `drive: 'sync'` the child drives its isolate from its main thread instead
 * (`sync-worker-child.ts`), as the product's worker runs a sequential step while another worker is idle.
 */
export async function rawProcessRunner(hostCall: RawHostCall = callHostTool, drive: 'isolate thread' | 'sync' = 'isolate thread'): Promise<RawProcessRunner> {
  let answer = hostCall
  /** Why the child is gone, once it is: a later run fails at once instead of waiting. */
  let exited: string | undefined
  let finished: ((message: { json?: string; error?: string }) => void) | undefined
  const { promise: ready, resolve: markReady } = Promise.withResolvers<void>()
  const child = startWorker<object, { type: string; callId?: number; name?: string; argsJson?: string; json?: string; error?: string }>({
    kind: 'process',
    entry: path.join(import.meta.dirname, drive === 'sync' ? 'sync-worker-child.ts' : 'raw-worker-child.ts'),
    execArgv: ['--no-node-snapshot'],
    onMessage(message) {
      if (message.type === 'ready') markReady()
      else if (message.type === 'call') {
        answer(message.name!, message.argsJson!).then(
          (json) => child.send({ type: 'answer', callId: message.callId, json }),
          (error: unknown) => child.send({ type: 'answer', callId: message.callId, error: error instanceof Error ? error.message : String(error) }),
        )
      } else if (message.type === 'done') finished?.(message)
    },
    // A child that dies fails the run in progress instead of leaving it waiting.
    onExit: (description) => {
      exited = `the child exited (${description})`
      finished?.({ error: exited })
    },
  })
  await ready
  const runCode: RawProcessRunner['runCode'] = async (code, names, runHostCall) => {
    if (exited !== undefined) throw new Error(`raw isolated-vm in a worker process: ${exited}`)
    const done = new Promise<{ json?: string; error?: string }>((resolve) => (finished = resolve))
    answer = runHostCall
    child.send({ type: 'run', code, names })
    const { json, error } = await done
    if (error !== undefined) throw new Error(`raw isolated-vm in a worker process: ${error}`)
    return json
  }
  return {
    pid: child.id,
    runCode,
    async run(script) {
      const json = await runCode(SCRIPTS[script].code, Object.keys(HOST_TOOLS), hostCall)
      expectValue(script, json === undefined ? undefined : JSON.parse(json), 'raw isolated-vm in a worker process')
    },
    async close() {
      child.kill()
    },
  }
}
