/**
 * `ToolRegistry`, the `ctx.tools` service (SPEC S1.4, S2.1, S2.2, S4, S7.1): holds the registered
 * tools and guards, builds model-facing schemas by allow-list, classifies calls for the scheduler
 * fail-closed, and runs calls through the pipeline.
 */
import { type Context, Service } from 'cordis'
import { z } from 'zod'
import { ToolDefinitionError } from '../errors/ptc-error.ts'
import { isTool, type Tool } from '../tools/define-tool.ts'
import type { ExecuteOptions, ToolCall, ToolExecutionMode, ToolGuard, ToolResult, ToolSchema } from '../tools/types.ts'
import { bindListenersWithoutProxyTraps, eventHooks, traceWithoutShadow } from './cordis-adapter.ts'
import { deepFreeze, materializeArguments } from './materialize.ts'
import type { ClassifiedCall } from './open-call.ts'
import { runToolCall } from './run-tool-call.ts'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
}

/**
 * How long after the registry stops (its host's dispose, which has already waited up to 2 s for
 * open calls) a call still open is ended `cancelled`, in ms: long enough for a run cancelled by
 * that dispose to answer with its own value.
 */
export const STOP_GRACE_MS = 1_000

const PARALLEL: ToolExecutionMode = Object.freeze({ kind: 'parallel' })
const EXCLUSIVE: ToolExecutionMode = Object.freeze({ kind: 'exclusive' })

/** The registry service. Install with `ctx.plugin(ToolRegistry)`; use as `ctx.tools`. */
export class ToolRegistry extends Service {
  readonly _tools = new Map<string, Tool>()
  /** The name of the plugin that registered each tool, for the message when a name is taken twice. */
  readonly _owners = new Map<string, string>()
  readonly _guards = new Set<ToolGuard>()
  readonly _schemas = new WeakMap<Tool, ToolSchema>()
  /** What {@link classifyOnce} read of a call, until {@link execute} of that call object takes it. */
  readonly _classified = new WeakMap<object, ClassifiedCall>()
  /** Aborted {@link STOP_GRACE_MS} after the registry's plugin stops: every call still open then ends `cancelled`. */
  readonly #stopping: AbortController = new AbortController()
  readonly _host = {
    ctx: this.ctx,
    events: eventHooks(this.ctx),
    tool: (name: string) => this._tools.get(name),
    guards: () => this._guards,
    toolNames: () => [...this._tools.keys()].sort(),
    /** Set when the registry's plugin stopped (its host was disposed): a call then says so (open-call.ts). */
    stopped: false,
    /** Set when its host's dispose began ({@link ToolRegistry.refuseNewCalls}). */
    closing: false,
    stopSignal: this.#stopping.signal as AbortSignal,
    calls: { open: 0 },
    takeClassified: (call: object) => {
      const classified = this._classified.get(call)
      if (classified !== undefined) this._classified.delete(call)
      return classified
    },
  }

  constructor(ctx: Context) {
    super(ctx, 'tools')
    // Speed: no per-call shadow proxies (see cordis-adapter.ts); tests pin the fiber ownership this must keep.
    traceWithoutShadow(this)
    // Speed: policies' listeners (registered after the registry) are called without cordis' proxy traps.
    bindListenersWithoutProxyTraps(ctx)
    // A call still open when the host has stopped (a body or a listener that never answers, past
    // dispose's wait for open calls) ends `cancelled` instead of never settling (S6.3, S6.5). Not
    // at once: a run cancelled by the dispose answers with its own value a moment later. The
    // timer keeps the process alive only while calls are open, so their callers hear the end.
    ctx.effect(
      () => () => {
        this._host.stopped = true
        if (this._host.calls.open === 0) this.#stopping.abort()
        else setTimeout(() => this.#stopping.abort(), STOP_GRACE_MS)
      },
      'tools stopped',
    )
  }

  /**
   * Its host is being disposed: from now on a call made by no script (no `parentToken`) is
   * refused, `failed` and not made; the calls of runs still finishing go on (the dispose waits
   * for them). Cannot be undone.
   */
  refuseNewCalls(): void {
    this._host.closing = true
  }

  /**
   * Register a tool made by `defineTool`. The registration is a side effect of the calling
   * plugin's fiber: disposing that plugin unregisters the tool (S1.4).
   * @returns the disposer.
   * @throws ToolDefinitionError if the value is not a `defineTool` result or the name is taken.
   */
  register(tool: Tool): () => Promise<void> {
    if (!isTool(tool)) throw new ToolDefinitionError('register() takes the result of defineTool({...}).', String((tool as { name?: unknown })?.name))
    return this.ctx.effect(() => {
      if (this._tools.has(tool.name)) {
        const owner = this._owners.get(tool.name)
        throw new ToolDefinitionError(
          `A tool named "${tool.name}" is already registered${owner ? ` (by the plugin "${owner}")` : ''}; tool names must be unique. Unregister the other plugin or rename one of them (a built-in tool is left out with createHost's builtins option, --builtins for ptc).`,
          tool.name,
        )
      }
      this._tools.set(tool.name, tool)
      this._owners.set(tool.name, this.ctx.fiber?.name ?? '')
      return () => {
        if (this._tools.get(tool.name) !== tool) return
        this._tools.delete(tool.name)
        this._owners.delete(tool.name)
      }
    }, `tools.register(${tool.name})`)
  }

  /**
   * Add a monotonic guard (S4.1), owned by the calling plugin's fiber. Guards run after every
   * `tools/pre-execute` listener, in registration order; a string denies, `undefined` passes.
   * @returns the disposer.
   */
  guard(guard: ToolGuard): () => Promise<void> {
    if (typeof guard !== 'function') throw new TypeError('guard() takes a function (execution) => string | undefined')
    return this.ctx.effect(() => {
      this._guards.add(guard)
      return () => this._guards.delete(guard)
    }, 'tools.guard()')
  }

  /** The registered tool called `name`, if any. */
  get(name: string): Tool | undefined {
    return this._tools.get(name)
  }

  /** All registered tools, sorted by name. */
  list(): Tool[] {
    return [...this._tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  /**
   * Model-facing schemas (S2.1), built from an explicit allow-list: `name`, `description`,
   * `parameters` (JSON Schema of the input) and `deferLoading` when set. Nothing else leaks.
   */
  schemas(): ToolSchema[] {
    return this.list().map((tool) => {
      let schema = this._schemas.get(tool)
      if (!schema) {
        schema = {
          name: tool.name,
          description: tool.description,
          parameters: tool.jsonSchemas?.parameters ?? (z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
          ...(tool.deferLoading === true && { deferLoading: true }),
        }
        this._schemas.set(tool, schema)
      }
      return structuredClone(schema)
    })
  }

  /**
   * How `call` may be scheduled (S2.2, S7.1), fail-closed: only a strict `true` from
   * `isConcurrencySafe` on valid arguments means parallel. An unknown tool, arguments that are not
   * JSON or fail validation, an omitted or throwing classifier, or any other answer: exclusive.
   */
  executionMode(call: ToolCall): ToolExecutionMode {
    return this._classify(call, false)
  }

  /**
   * {@link executionMode} of a call its caller made itself and hands unchanged to {@link execute}
   * next (the PTC bridge): the arguments materialized, validated and deep-frozen here are the ones
   * that `execute` of the same call object then runs with, so a call from code reads and
   * validates its arguments once instead of twice (S6.1; issue 12). The classifier sees the
   * frozen arguments. Kept for one `execute` of that object; a tool replaced in between is
   * validated again.
   */
  classifyOnce(call: ToolCall): ToolExecutionMode {
    return this._classify(call, true)
  }

  /** Both classifications; `keep`: remember what was read for `execute` (a method, not `#private`: callers reach it through cordis' proxy). */
  _classify(call: ToolCall, keep: boolean): ToolExecutionMode {
    try {
      const tool = this._tools.get(call.name)
      // Without a classifier the answer is exclusive; classifyOnce still reads the arguments for execute.
      if (tool === undefined || (!tool.isConcurrencySafe && !keep)) return EXCLUSIVE
      const materialized = materializeArguments(call.arguments === undefined ? {} : call.arguments)
      const parsed = tool.parameters.safeParse(materialized)
      if (!parsed.success) return EXCLUSIVE
      let data = parsed.data
      if (keep) {
        data = deepFreeze(data)
        this._classified.set(call, { tool, arguments: materialized, args: data })
      }
      return tool.isConcurrencySafe?.(data) === true ? PARALLEL : EXCLUSIVE
    } catch {
      return EXCLUSIVE
    }
  }

  /**
   * Run one call through the whole pipeline (S3–S6). Never rejects: every failure is an
   * `isError` result (S6.5). The result is deep-frozen (S6.4).
   *
   * An own property holding a closure over the pipeline's host, not a prototype method (issue 12):
   * a caller holding `ctx.tools` reaches it through cordis' tracing proxy, whose lookup stops at
   * the instance, and the call then reads nothing more through that proxy.
   */
  readonly execute: (call: ToolCall, options?: ExecuteOptions) => Promise<ToolResult> = (call, options) => runToolCall(this._host, call, options)
}
