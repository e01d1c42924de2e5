/**
 * The floors of issue 12's harness rows as peers of the harness itself (`../shared/bench-peers`),
 * so a floor is measured in the same harness run, under the same warm-up and load, as the
 * product: `bench/peers/ours-floor.mjs` and `ours-floor-inline.mjs` call {@link createFloorRunner}.
 *
 * A floor is the product's design with nothing of its own in the isolate or the worker (as in
 * `call-path.bench.ts`): the real `run_code` tool of a real host, with its pipeline, compile cache
 * and result checks, whose isolate step runs the script in raw isolated-vm exactly as the
 * harness's `isolated-vm-raw` peer does (a fresh isolate per run, one `Reference.apply` a call,
 * JSON text both ways), and each call from it goes through that run's own bridge, execution gate
 * and whole pipeline (the policy every call from code must pass: the product's point). With
 * `'process'`, that raw isolate lives in a child process behind the product's worker channel,
 * driven from the child's main thread (`sync-worker-child.ts`), as the product's worker runs a
 * sequential step. Bench only.
 *
 * A floor of W1, W2 and W4 (cold runs, sequential calls, 64 KB results), not of W3: that child
 * enters the isolate once for every answer, where the product's worker batches the answers to
 * parallel calls into one entry on the isolate's own thread, so for `Promise.all` the two designs
 * differ (the product is quicker there).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createHost, type Host } from '../src/index.ts'
import { untraced } from '../src/pipeline/cordis-adapter.ts'
import type { IsolateRunRequest, IsolateRunResult, IsolateToolOutcome } from '../src/ptc/isolate/isolate-contract.ts'
import { rawProcessRunner, registerHarnessTools, type RawHostCall, type RawProcessRunner } from './call-path-fixtures.ts'
import { runRawIsolate } from './raw-isolate.ts'

/** A harness peer's runner: `run(code)` answers `{ value }` or `{ error }` (never throws for a failed run). */
export interface HarnessRunner {
  run(code: string): Promise<{ value?: unknown; error?: string }>
  close(): Promise<void>
}

/** The harness's host tools: each takes one JSON object and answers JSON (`lib/host-tools.mjs`). */
export type HarnessTools = Record<string, (args: never) => Promise<unknown>>

/** Calls a run may make: the harness's W2 and W3 make 2,000 (the `ours` adapter raises the same limit). */
const MAX_TOOL_CALLS = 100_000

/**
 * A host as the harness's `ours` adapters make it (type-checking off, no journal, `tools`
 * registered with permissive schemas and concurrency-safe), whose `run_code` runs each script in
 * raw isolated-vm, in this process (`'inline'`) or in a worker process (`'process'`). The runner
 * carries the `host`, for policies a test adds.
 * @throws Error when the host or the worker process cannot start, or its first run fails.
 */
export async function createFloorRunner(tools: HarnessTools, isolation: 'inline' | 'process'): Promise<HarnessRunner & { host: Host }> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ptc-bench-floor-'))
  // Inline, with no isolate pool: the service's own isolates are never used, so none is made, and
  // no worker process is started for them.
  const host = await createHost({ workspace, journal: false, ptc: { typecheck: false, isolation: 'inline', poolSize: 0, limits: { maxToolCalls: MAX_TOOL_CALLS } } })
  let child: RawProcessRunner | undefined
  const close = async (): Promise<void> => {
    await child?.close()
    await host.dispose()
    rmSync(workspace, { recursive: true, force: true })
  }
  try {
    await registerHarnessTools(host, tools)
    child = isolation === 'process' ? await rawProcessRunner(undefined, 'sync') : undefined
    const runRaw = (code: string, names: readonly string[], hostCall: RawHostCall) => (child ? child.runCode(code, names, hostCall) : runRawIsolate(code, names, hostCall))
    const service = untraced(host.ctx.ptc) as unknown as { runInIsolation: (request: IsolateRunRequest) => Promise<IsolateRunResult> }
    service.runInIsolation = (request) => runIsolateStep(request, runRaw)
    const run = async (code: string): Promise<{ value?: unknown; error?: string }> => {
      const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'bench' })
      const value = result.value as { status?: string; value?: unknown; error?: { message?: string } } | undefined
      if (result.isError) return { error: `run_code failed: ${result.error?.message ?? 'unknown'}` }
      return value?.status === 'ok' ? { value: value.value } : { error: `${value?.status ?? '?'}: ${value?.error?.message ?? 'unknown'}` }
    }
    const first = await run('return 1')
    if (first.value !== 1) throw new Error(`floor (${isolation}): the first run failed: ${first.error ?? JSON.stringify(first.value)}`)
    return { host, run, close }
  } catch (error) {
    // Nothing left behind: the child, the host and the workspace go with the failure.
    await close()
    throw error
  }
}

/** The isolate step of one `run_code` run, done by raw isolated-vm; each call goes to the run's own `dispatch`. */
async function runIsolateStep(request: IsolateRunRequest, runRaw: (code: string, names: readonly string[], hostCall: RawHostCall) => Promise<string | undefined>): Promise<IsolateRunResult> {
  const startedAt = performance.now()
  const signal = request.signal ?? new AbortController().signal
  let calls = 0
  const hostCall: RawHostCall = (name, argsJson) =>
    new Promise((resolve, reject) => {
      const settle = (outcome: IsolateToolOutcome) => (outcome.ok ? resolve(outcome.valueJson) : reject(new Error(outcome.message)))
      const returned = request.dispatch({ pairingId: `floor:${calls++}`, name, argsJson, signal, answer: settle })
      returned?.then(settle, reject)
    })
  const ended = (): Pick<IsolateRunResult, 'logs' | 'toolCalls' | 'durationMs'> => ({ logs: [], toolCalls: calls, durationMs: performance.now() - startedAt })
  try {
    const json = await runRaw(request.js, request.toolNames, hostCall)
    return { status: 'ok', ...(json !== undefined && { value: JSON.parse(json) as unknown }), ...ended() }
  } catch (error) {
    return { status: 'error', error: { name: 'Error', message: (error as Error).message ?? String(error) }, ...ended() }
  }
}
