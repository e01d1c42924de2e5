/**
 * `ctx.ptc`, the PTC service (SPEC S9): turns a model's TypeScript into a run. It holds the
 * per-process state (a warm type checker, a pool of pre-created isolates, a declarations cache)
 * and runs one script: generate declarations for the visible tools → type-check → compile →
 * run in a fresh isolate with every `tools.x()` bridged back through the registry pipeline.
 */
import { type Context, Service } from 'cordis'
import { generateDeclarations, type TypegenOptions, type TypegenTool } from '../../typegen/index.ts'
import { materializeJson } from '../pipeline/materialize.ts'
import { ExecutionGate } from '../scheduler/execution-gate.ts'
import type { Tool } from '../tools/define-tool.ts'
import { createBridge } from './bridge.ts'
import { CompileError, compileScript } from './compile.ts'
import { IsolatePool } from './isolate-pool.ts'
import { DEFAULT_RUN_LIMITS, runInIsolate, type IsolateRunRequest, type IsolateRunResult, type RunLimits } from './isolate-runner.ts'
import { IsolateSupervisor } from './isolate-supervisor.ts'
import type { RunCodeValue } from './run-code-value.ts'
import type { Diagnostic } from './compile-diagnostics.ts'
import type { TypeChecker } from './type-checker.ts'

declare module 'cordis' {
  interface Context {
    ptc: Ptc
  }
}

/** Deployment configuration of PTC mode. */
export interface PtcConfig {
  /** Default limits of every run (see `RunLimits`: ms, MB, counts, bytes). */
  limits?: Partial<RunLimits>
  /** Upper bound in ms for a per-run `timeoutMs` a caller (or model) may ask for. Default 300,000. */
  maxWallClockMs?: number
  /** Type-check scripts before running (default true). */
  typecheck?: boolean
  /** Isolates created ahead of time (default 2). */
  poolSize?: number
  /**
   * Where isolates run (default `'process'`). `'process'`: in a supervised worker process
   * (`IsolateSupervisor`), so nothing a script does to isolated-vm (a catastrophic out-of-memory,
   * an isolate thread that never ends) can hang or take down the host; costs one IPC round trip
   * per tool call and a worker start-up (overlapped with the type-check of the first run, and
   * redone after a worker is recycled). `'inline'`: isolates in this process (`runInIsolate`),
   * for embedding without child processes and for benchmarks; a catastrophic isolate failure can
   * then leave the host unable to exit (see `onIsolateCatastrophe`).
   */
  isolation?: 'process' | 'inline'
  /** Width of the rolling pool for parallel calls from one script (default 8). */
  concurrency?: number
  /** Largest script accepted, in bytes (UTF-8); larger ones are refused before type-checking. Default 512 KiB. */
  maxScriptBytes?: number
  /** Which registered tools a script may call; `run_code` itself never. Default: all. */
  visible?: (tool: Tool) => boolean
}

/** Per-run options. */
export interface RunOptions {
  typecheck?: boolean
  /** Wall-clock deadline of this run in ms (capped by `maxWallClockMs`). */
  timeoutMs?: number
  memoryMb?: number
  signal?: AbortSignal
  agent?: string
  /** The token and id of the `run_code` call this run belongs to (S9.5). */
  parentToken?: symbol
  parentCallId?: string
}

/** The name of the transport tool (S9.4); never callable from a script. */
export const RUN_CODE = 'run_code'

/** Default `maxScriptBytes`: 512 KiB. */
export const DEFAULT_MAX_SCRIPT_BYTES = 512 * 1024

export class Ptc extends Service {
  static inject = ['tools']
  readonly _config: PtcConfig
  _checker: TypeChecker | undefined
  _pool: IsolatePool | undefined
  _supervisor: IsolateSupervisor | undefined

  constructor(ctx: Context, config: PtcConfig = {}) {
    super(ctx, 'ptc')
    this._config = config
    ctx.effect(() => () => {
      this._pool?.dispose()
      this._supervisor?.dispose()
      this._checker?.dispose()
      this._pool = this._checker = this._supervisor = undefined
    }, 'ptc resources')
  }

  /** The tools a script may call, sorted by name (S9.1: every visible registered tool). */
  visibleTools(): Tool[] {
    const visible = this._config.visible ?? (() => true)
    return this.ctx.tools.list().filter((tool) => tool.name !== RUN_CODE && visible(tool))
  }

  /**
   * The declaration file scripts are checked against (`ToolArgsMap`, `ToolOutputMap`, `tools`);
   * `options` pick the form (`embedded` for the `run_code` description, `compact` to cut docs).
   */
  declarations(options: TypegenOptions = {}): Promise<string> {
    return generateDeclarations(this.visibleTools().map(typegenTool), options)
  }

  /** Type-check `code` against the visible tools' declarations; `[]` when it is fine. */
  async check(code: string): Promise<Diagnostic[]> {
    const declarations = await this.declarations()
    return (await this.checker()).check(code, declarations)
  }

  /**
   * Run one script. Never rejects for anything the script does: failures are statuses
   * (`type-error`, `error`, `timeout`, `memory`, `cancelled`) with a readable `error`.
   */
  async run(code: string, options: RunOptions = {}): Promise<RunCodeValue> {
    const started = performance.now()
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000
    const maxScriptBytes = this._config.maxScriptBytes ?? DEFAULT_MAX_SCRIPT_BYTES
    const scriptBytes = Buffer.byteLength(code, 'utf8')
    if (scriptBytes > maxScriptBytes) {
      // Checked before anything else: type-checking a huge script would block the host.
      return { status: 'error', error: { name: 'LimitError', message: `The script is ${scriptBytes} bytes, over the ${maxScriptBytes}-byte limit (maxScriptBytes); no tool was called. Send a shorter script.` }, logs: [], toolCalls: 0, durationMs: elapsed() }
    }
    const tools = this.visibleTools()
    // Start the worker while the script is checked and compiled; a failure surfaces in the run.
    if (this._config.isolation !== 'inline') this.supervisor().prewarm().catch(() => {})
    if (options.typecheck ?? this._config.typecheck ?? true) {
      const diagnostics = (await this.check(code)).filter((d) => d.category === 'error')
      if (diagnostics.length > 0) {
        return { status: 'type-error', error: { name: 'TypeCheckError', message: `The script has ${diagnostics.length} type error${diagnostics.length === 1 ? '' : 's'}; no tool was called. Fix them and run again.` }, diagnostics, logs: [], toolCalls: 0, durationMs: elapsed() }
      }
    }
    let js: string
    try {
      js = (await compileScript(code)).js
    } catch (error) {
      if (!CompileError.isInstance(error)) throw error
      return { status: 'type-error', error: { name: 'SyntaxError', message: error.message }, diagnostics: [...error.diagnostics], logs: [], toolCalls: 0, durationMs: elapsed() }
    }
    const limits: Partial<RunLimits> = { ...this._config.limits }
    if (options.timeoutMs !== undefined) limits.wallClockMs = Math.min(options.timeoutMs, this._config.maxWallClockMs ?? 300_000)
    if (options.memoryMb !== undefined) limits.memoryMb = options.memoryMb
    // The wall-clock deadline covers the whole run: checking and compiling spend from it too.
    const deadlineMs = limits.wallClockMs ?? DEFAULT_RUN_LIMITS.wallClockMs
    const remainingMs = Math.floor(deadlineMs - (performance.now() - started))
    if (remainingMs <= 0) {
      return { status: 'timeout', error: { name: 'TimeoutError', message: `Type-checking and compiling the script used up the run's ${deadlineMs} ms wall-clock deadline (wallClockMs); no tool was called. Send a smaller script or raise timeoutMs.` }, logs: [], toolCalls: 0, durationMs: elapsed() }
    }
    limits.wallClockMs = remainingMs
    const parentToken = options.parentToken ?? Symbol('run_code')
    const dispatch = createBridge({
      ctx: this.ctx,
      tools: this.ctx.tools,
      visible: new Set(tools.map((tool) => tool.name)),
      parentToken,
      parentCallId: options.parentCallId ?? 'run',
      agent: options.agent,
      gate: new ExecutionGate(this._config.concurrency),
    })
    const result = await this.runInIsolation({ js, toolNames: tools.map((tool) => tool.name), limits, ...(options.signal && { signal: options.signal }), dispatch })
    if (result.status === 'timeout' && result.error && remainingMs < deadlineMs) {
      // The runner knows only the time left after checking; say the deadline the caller set.
      result.error = {
        ...result.error,
        message: result.error.message.replace(`limit of ${remainingMs} ms (wallClockMs)`, `limit of ${deadlineMs} ms (wallClockMs; type-checking and compiling used ${deadlineMs - remainingMs} ms of it)`),
      }
    }
    if (result.value !== undefined) {
      try {
        // S6.1: the result must be lossless JSON the pipeline can validate without overflowing.
        materializeJson(result.value)
      } catch (error) {
        return { ...(result as RunCodeValue), status: 'error', value: undefined, error: { name: 'TypeError', message: `The script's return value cannot be the result: ${(error as Error).message}. Return a flatter JSON value.` }, durationMs: elapsed() }
      }
    }
    return { ...(result as RunCodeValue), durationMs: elapsed() }
  }

  /** The TypeScript compiler (~0.8 s to load) is imported on the first check only, so runs
   * without type-checking, `ptc replay` and server start-up never pay for it. */
  private async checker(): Promise<TypeChecker> {
    if (!this._checker) {
      const { TypeChecker } = await import('./type-checker.ts')
      this._checker ??= new TypeChecker()
    }
    return this._checker
  }

  private runInIsolation(request: IsolateRunRequest): Promise<IsolateRunResult> {
    return this._config.isolation === 'inline' ? runInIsolate(request, this.pool()) : this.supervisor().run(request)
  }

  private supervisor(): IsolateSupervisor {
    return (this._supervisor ??= new IsolateSupervisor({ poolSize: this._config.poolSize ?? 2, memoryMb: this._config.limits?.memoryMb ?? 128 }))
  }

  private pool(): IsolatePool {
    return (this._pool ??= new IsolatePool({ size: this._config.poolSize ?? 2, memoryMb: this._config.limits?.memoryMb ?? 128 }))
  }
}

function typegenTool(tool: Tool): TypegenTool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    output: tool.output.schema,
    ...(tool.jsonSchemas?.parameters && { parametersJsonSchema: tool.jsonSchemas.parameters }),
    ...(tool.jsonSchemas?.output && { outputJsonSchema: tool.jsonSchemas.output }),
    ...(tool.deferLoading === true && { deferLoading: true }),
  }
}
