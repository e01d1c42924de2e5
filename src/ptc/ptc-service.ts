/**
 * `ctx.ptc`, the PTC service (SPEC S9): turns a model's TypeScript into a run. It holds the
 * per-process state (warm checker workers, a pool of pre-created isolates, a declarations cache)
 * and runs one script: generate declarations for the visible tools → type-check and compile in a
 * checker worker → run in a fresh isolate with every `tools.x()` bridged back through the
 * registry pipeline. The host's event loop only routes: nothing whose length a script decides
 * runs on it (issue 16).
 */
import { type Context, Service } from 'cordis'
import { generateDeclarations, generateDeclarationsSync, type TypegenOptions } from '../../typegen/index.ts'
import { traceWithoutShadow, untraced } from '../pipeline/cordis-adapter.ts'
import { canonicalJson } from '../pipeline/materialize.ts'
import { ExecutionGate } from '../scheduler/execution-gate.ts'
import type { ToolRegistry } from '../pipeline/tool-registry.ts'
import type { Tool } from '../tools/define-tool.ts'
import { ApprovalWaits } from './approval-waits.ts'
import { createBridge } from './bridge.ts'
import { InlineRuns } from './inline-runs.ts'
import { CheckerPool } from './check/checker-pool.ts'
import { canPrepareInHost, prepareInHost } from './check/prepare-in-host.ts'
import { discardCheckerSnapshot, findCheckerSnapshot } from './check/checker-snapshot.ts'
import type { Diagnostic } from './compile-diagnostics.ts'
import { countErrors } from './format-diagnostics.ts'
import { stopEsbuildService } from './compile.ts'
import type { IsolateRunRequest, IsolateRunResult } from './isolate/isolate-contract.ts'
import type { IsolatePool } from './isolate/isolate-pool.ts'
import type { runInIsolate as RunInIsolate } from './isolate/isolate-run.ts'
import { IsolateSupervisorGroup } from './isolate/supervisor-group.ts'
import type { PtcConfig, RunOptions } from './ptc-config.ts'
import { runDeadlineMs, withCapNote } from './run-deadline.ts'
import { isolateWorkerOptions, prestartsWorker } from './isolate/worker-start.ts'
import { cancelledError } from './isolate/run-endings.ts'
import { checkerCrashEnding, checkTimeoutEnding } from './check-endings.ts'
import type { RunLimits } from './isolate/run-limits.ts'
import type { RunCodeValue } from './run-code-value.ts'
import { scriptError, scriptWarning } from './script-positions.ts'
import { scriptTooLong } from './script-size.ts'
import { typegenTool } from './typegen-tool.ts'

declare module 'cordis' {
  interface Context {
    ptc: Ptc
  }
}

export type { PtcConfig, RunOptions } from './ptc-config.ts'

/** The name of the transport tool (S9.4); never callable from a script. */
export const RUN_CODE = 'run_code'

/** Why a run fails when the host is disposed before its script ran (S9.1). */
const SERVICE_DISPOSED = 'the PTC service was disposed (the host is shutting down); the script was not run'

/** PTC services of this process not disposed yet: the last one's dispose stops esbuild's service. */
let liveServices = 0

export class Ptc extends Service {
  static inject = ['tools']
  readonly _config: PtcConfig
  _checkers: CheckerPool | undefined
  /** Set once a run type-checks (or `check`, `prewarm`): new checkers then warm TypeScript up. */
  _typechecks = false
  /** `isolation: 'inline'` only: isolated-vm is loaded with the first run, never by the host otherwise. */
  _pool: Promise<{ pool: IsolatePool; runInIsolate: typeof RunInIsolate }> | undefined
  _supervisor: IsolateSupervisorGroup | undefined
  /** Set when the service stops: no checker, pool or worker is made after that (a run then fails). */
  _disposed = false
  /** The inline runs in flight: the service's dispose stops them (S9.1). */
  private readonly _inlineRuns = new InlineRuns()
  /** The runs' calls waiting for approval: a deadline passing during that wait says so. */
  private readonly _approvalWaits: ApprovalWaits
  /**
   * The registry itself, not its tracing proxy: read for every run and called twice per tool call
   * (`list`, `execute` and `executionMode` do not read `this.ctx`). The service is injected with
   * `tools`, so a new registry restarts it.
   */
  readonly _tools: ToolRegistry

  constructor(ctx: Context, config: PtcConfig = {}) {
    super(ctx, 'ptc')
    // Speed (issue 12): no shadow proxy a `ctx.ptc` access; nothing here needs the caller's own fiber.
    traceWithoutShadow(this)
    this._config = config
    this._tools = untraced(ctx.tools)
    this._approvalWaits = new ApprovalWaits(ctx)
    liveServices++
    ctx.effect(() => () => {
      if (--liveServices === 0) stopEsbuildService() // It starts again on its next use.
      // Also when isolated-vm is still loading: the pool is disposed as soon as it exists.
      this._pool?.then(({ pool }) => pool.dispose(), () => {})
      this._supervisor?.dispose()
      this._checkers?.dispose()
      this._pool = this._checkers = this._supervisor = undefined
      this._disposed = true
      this._inlineRuns.stopAll()
    }, 'ptc resources')
    // Adopts the worker that `createHost` or `ptc run` prestarted, if any; disposed with the service.
    if (prestartsWorker(config)) this.supervisor().start()
  }

  /** The tools a script may call, sorted by name (S9.1: every visible registered tool). */
  visibleTools(): Tool[] {
    const visible = this._config.visible ?? (() => true)
    return this._tools.list().filter((tool) => tool.name !== RUN_CODE && visible(tool))
  }

  /**
   * The declaration file scripts are checked against (`ToolArgsMap`, `ToolOutputMap`, `tools`);
   * `options` pick the form (`embedded` for the `run_code` description, `compact` to cut docs).
   */
  declarations(options: TypegenOptions = {}): Promise<string> {
    return generateDeclarations(this.visibleTools().map(typegenTool), options)
  }

  /** {@link declarations}, synchronously (the same text): for a description a framework reads without waiting. */
  declarationsSync(options: TypegenOptions = {}): string {
    return generateDeclarationsSync(this.visibleTools().map(typegenTool), options)
  }

  /**
   * Type-check `code` against the visible tools' declarations in a checker worker; `[]` when it
   * is fine. A script over `maxScriptBytes` is one error diagnostic at 1:1, unchecked, as `run`
   * refuses it. A check that does not finish within the default wall-clock limit (`limits.wallClockMs`)
   * is stopped and reported as one error diagnostic at 1:1.
   */
  async check(code: string): Promise<Diagnostic[]> {
    const tooLong = scriptTooLong(code, this._config.maxScriptBytes)
    if (tooLong !== undefined) return [{ line: 1, column: 1, category: 'error', message: `${tooLong}, which run_code refuses. Send a shorter script.` }]
    this._typechecks = true
    const timeoutMs = runDeadlineMs(this._config)
    const { outcome } = await this.checkers().prepare({ code, typecheck: true, compile: false }, { declarations: await this.declarations(), timeoutMs })
    if (outcome.kind === 'prepared') return outcome.prepared.diagnostics
    const why = outcome.kind === 'timeout' ? `did not finish within ${timeoutMs} ms (wallClockMs) and was stopped` : outcome.kind === 'cancelled' ? 'was cancelled' : `failed: ${outcome.message}`
    const advice = /call stack/i.test(why) ? 'The script nests too deeply (brackets, calls or expressions inside one another) or its types are deeply recursive: flatten it' : 'Simplify its types (deeply recursive or very large types)'
    return [{ line: 1, column: 1, category: 'error', message: `Type-checking the script ${why}. ${advice}.` }]
  }

  /**
   * Starts the checker workers and (with `isolation: 'process'`) the isolate worker now, so the
   * first runs find them warm; `ptc serve` calls it at start-up. Resolves when they are ready.
   * @throws Error when a worker cannot start (infrastructure).
   */
  async prewarm(): Promise<void> {
    if (this._config.typecheck ?? true) this._typechecks = true
    await Promise.all([this.checkers().prewarm(), this._config.isolation === 'inline' ? undefined : this.supervisor().prewarm()])
  }

  /**
   * Run one script. Never rejects for anything the script does: failures are statuses
   * (`type-error`, `error`, `timeout`, `memory`, `cancelled`) with a readable `error`.
   *
   * The deadline (`timeoutMs`, default `limits.wallClockMs`) covers checking, compiling and
   * running, counted from the call, waiting for a busy checker included. Not charged: the cold
   * start of the first checker (a `ptc run`; `ptc serve` prewarms) or, for an unchecked script
   * (compiled by esbuild from the host, `prepare-in-host.ts`), of esbuild's service, and waiting
   * for the isolate worker to start or restart. `durationMs` is the charged time.
   * @throws Error for infrastructure failures (a worker cannot start), and when the host is disposed
   *   before the script ran ("the PTC service was disposed …; the script was not run"); a run the
   *   dispose stops later ends `cancelled`.
   */
  async run(code: string, options: RunOptions = {}): Promise<RunCodeValue> {
    try {
      return await this.runOnce(code, options)
    } catch (error) {
      // The host was disposed before the script ran (while it was checked or compiled, or waited
      // for the worker or the pool): said as such, not as the checker pool's or the pool's error.
      if (this._disposed && !options.signal?.aborted) throw new Error(SERVICE_DISPOSED)
      throw error
    }
  }

  /** {@link run}, without the mapping of a dispose's failures. */
  private async runOnce(code: string, options: RunOptions): Promise<RunCodeValue> {
    const tooLong = scriptTooLong(code, this._config.maxScriptBytes)
    if (tooLong !== undefined) return { status: 'error', error: { name: 'LimitError', message: `${tooLong}; no tool was called. Send a shorter script.` }, logs: [], toolCalls: 0, durationMs: 0 }
    const tools = this.visibleTools()
    const limits: Partial<RunLimits> = { ...this._config.limits }
    const deadlineMs = (limits.wallClockMs = runDeadlineMs(this._config, options.timeoutMs))
    if (options.memoryMb !== undefined) limits.memoryMb = options.memoryMb
    const typecheck = options.typecheck ?? this._config.typecheck ?? true
    if (typecheck) this._typechecks = true
    // The isolate worker (inline: isolated-vm and the pool) starts while the script is checked;
    // a failure surfaces in the run.
    const isolationReady = (this._config.isolation === 'inline' ? this.pool() : this.supervisor().prewarm()).then(() => {}, () => {})
    const declarations = typecheck ? await this.declarations() : ''
    const prepareOptions = { timeoutMs: deadlineMs, ...(options.signal && { signal: options.signal }), ...(options.agent !== undefined && { group: options.agent }) }
    // Unchecked, esbuild compiles from here (issue 12): no checker process to start and wait for.
    const { outcome, startedAt, checkMs } = !typecheck && canPrepareInHost(code) ? await prepareInHost(code, prepareOptions) : await this.checkers().prepare({ code, typecheck, compile: true }, { declarations, ...prepareOptions })
    const stopped = (status: RunCodeValue['status'], error: { name: string; message: string }): RunCodeValue => ({ status, error: withCapNote(error, options.timeoutMs, deadlineMs), logs: [], toolCalls: 0, durationMs: Math.round(checkMs * 1000) / 1000 })
    if (outcome.kind === 'timeout' || (outcome.kind === 'prepared' && outcome.prepared.kind === 'compiled' && Math.ceil(checkMs) >= deadlineMs)) {
      const { status, error } = checkTimeoutEnding(deadlineMs, typecheck, outcome.kind === 'timeout' && outcome.waiting === true)
      return stopped(status, error)
    }
    if (outcome.kind === 'cancelled') return stopped('cancelled', cancelledError())
    if (outcome.kind === 'crashed') {
      // The checker pool stopped under a dispose: the run fails as one made after it (see `run`).
      if (!options.signal?.aborted) this.assertAlive()
      const { status, error } = checkerCrashEnding(outcome.message, typecheck)
      return stopped(status, error)
    }
    const prepared = outcome.prepared
    if (prepared.kind === 'type-error') {
      const diagnostics = prepared.diagnostics.filter((d) => d.category === 'error')
      const errors = countErrors(diagnostics)
      return { ...stopped('type-error', { name: 'TypeCheckError', message: `The script has ${errors} type error${errors === 1 ? '' : 's'}; no tool was called. Fix them and run again.` }), diagnostics }
    }
    if (prepared.kind === 'syntax-error') return { ...stopped('type-error', { name: 'SyntaxError', message: prepared.message }), diagnostics: prepared.diagnostics }
    if (prepared.kind !== 'compiled') throw new Error(`the checker answered ${prepared.kind} to a compile request`)
    // Waiting for the isolate worker to start is not charged either.
    const waitedFrom = performance.now()
    await isolationReady
    const waitedMs = performance.now() - waitedFrom
    // Whole ms on both sides, so the runner's message adds them back up to the caller's deadline.
    const chargedMs = Math.ceil(checkMs)
    limits.wallClockMs = Math.max(1, deadlineMs - chargedMs)
    const parentToken = options.parentToken ?? Symbol('run_code')
    const running = options.onCancelNote && new Map<string, string>()
    const dispatch = createBridge({
      ctx: this.ctx,
      tools: this._tools,
      visible: new Set(tools.map((tool) => tool.name)),
      parentToken,
      parentCallId: options.parentCallId ?? 'run',
      agent: options.agent,
      gate: new ExecutionGate(this._config.concurrency),
      ...(running && { running }),
    })
    // The runner gets the time left; `checkMs` lets its timeout message account for the rest.
    const cancel = options.signal && running && { signal: options.signal, running, note: options.onCancelNote! }
    const result = await this._approvalWaits.during(parentToken, deadlineMs, () => this.runInIsolation({ js: prepared.compiled.js, toolNames: tools.map((tool) => tool.name), limits, checkMs: chargedMs, ...(options.signal && { signal: options.signal }), dispatch }), cancel)
    const durationMs = Math.round((performance.now() - startedAt - waitedMs) * 1000) / 1000
    // Issue 11: the error's frames are in the compiled JavaScript; the model wants its own lines.
    const value: RunCodeValue = {
      ...result,
      ...(result.error !== undefined && { error: scriptError(result.error, prepared.compiled, code) }),
      ...(result.warnings !== undefined && { warnings: result.warnings.map((warning) => scriptWarning(warning, prepared.compiled, code)) }),
      durationMs,
    }
    if (value.status === 'timeout' && value.error) value.error = withCapNote(value.error, options.timeoutMs, deadlineMs)
    if (value.value !== undefined) {
      try {
        // S6.1: lossless JSON, checked where it sits (`$.value`); the pipeline's copy reuses it.
        value.value = (canonicalJson({ value: value.value }) as { value: unknown }).value
      } catch (error) {
        const why = (error as Error).message // advice included ("send a flatter value …") unless bare
        return { ...value, status: 'error', value: undefined, error: { name: 'TypeError', message: `The script's return value cannot be the result: ${why}${/flatter/.test(why) ? '' : '. Return a flatter JSON value'}.` } }
      }
    }
    return value
  }

  /** Checker workers: threads with `isolation: 'inline'`, processes otherwise (see `CheckerPool`). */
  private checkers(): CheckerPool {
    this.assertAlive()
    return (this._checkers ??= new CheckerPool({
      kind: this._config.isolation === 'inline' ? 'thread' : 'process',
      size: this._config.checkers ?? 2,
      ...(this._config.startTimeoutMs !== undefined && { startTimeoutMs: this._config.startTimeoutMs }),
      warmup: async () => (this._typechecks ? this.declarations() : undefined),
      // A checker that type-checks starts from the snapshot with TypeScript warm, when there is one.
      snapshot: () => (this._typechecks ? findCheckerSnapshot() : undefined),
      snapshotFailed: discardCheckerSnapshot,
    }))
  }

  /**
   * A run that reaches the service after it stopped (a call made as the host is disposed) fails
   * instead of starting a worker no one would stop.
   * @throws Error once the service is disposed.
   */
  private assertAlive(): void {
    if (this._disposed) throw new Error(SERVICE_DISPOSED)
  }

  private runInIsolation(request: IsolateRunRequest): Promise<IsolateRunResult> {
    return this._config.isolation === 'inline' ? this.runInline(request) : this.supervisor().run(request)
  }

  /** A run in this process's isolates; the service's dispose cancels it, as the supervisor's does (`inline-runs.ts`). */
  private async runInline(request: IsolateRunRequest): Promise<IsolateRunResult> {
    const { runInIsolate, pool } = await this.pool()
    return this._inlineRuns.run(request, (running) => runInIsolate(running, pool))
  }

  private supervisor(): IsolateSupervisorGroup {
    this.assertAlive()
    const { startTimeoutMs, recycleWorkerAfterRuns: recycleAfterRuns, isolateWorkers: workers } = this._config
    return (this._supervisor ??= new IsolateSupervisorGroup({ ...isolateWorkerOptions(this._config), ...(startTimeoutMs !== undefined && { startTimeoutMs }), ...(recycleAfterRuns !== undefined && { recycleAfterRuns }), ...(workers !== undefined && { workers }) }))
  }

  /** The inline isolates and their runner, loaded once (a dynamic `import()` a run cost ~20 µs of loader work). */
  private pool(): Promise<{ pool: IsolatePool; runInIsolate: typeof RunInIsolate }> {
    this.assertAlive()
    const { poolSize: size, memoryMb } = isolateWorkerOptions(this._config)
    return (this._pool ??= Promise.all([import('./isolate/isolate-pool.ts'), import('./isolate/isolate-run.ts')]).then(([{ IsolatePool }, { runInIsolate }]) => ({ pool: new IsolatePool({ size, memoryMb }), runInIsolate })))
  }
}
