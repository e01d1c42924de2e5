/**
 * Registering another framework's tools as ptc tools (issue 15; SPEC S1, S2.2, S5.1, S5.3,
 * S8.1): each becomes a `defineTool` tool, so a script calls it as `tools.name(args)` with
 * generated types and every call runs through the pipeline. A tool's own approval rule (the AI
 * SDK's `needsApproval` / `toolApproval`, the Agents SDK's `needsApproval`) becomes an `ask` in a
 * `tools/pre-execute` listener, answered by the host's approval service: allowed-once (S8.1), and
 * with no responder (headless) a denial (S5.3, S8.2). The adapters turn their framework's tool
 * into a {@link ForeignTool}; this module knows no framework.
 */
import { type Context, defineTool, type JsonValue, jsonSchemaCheck, type PreToolDecision, type ToolExecution, z } from '../index.ts'

/** What a tool's approval rule says about one call. */
export type ForeignApproval =
  | { kind: 'none' }
  | { kind: 'ask'; reason?: string }
  | { kind: 'deny'; reason?: string }

/** One framework tool, described for registration. */
export interface ForeignTool {
  name: string
  description: string
  /** JSON Schema of the arguments: what the model and the generated declarations see (S2.1, S9.1). */
  parametersJsonSchema?: Record<string, unknown>
  /** A zod 4 schema that validates (and parses) the arguments; default: `parametersJsonSchema` checked by ajv. */
  parameters?: z.ZodType
  /** JSON Schema of the canonical value, when the tool declares one (feeds `ToolOutputMap`). */
  outputJsonSchema?: Record<string, unknown>
  /** A zod 4 schema of the canonical value, when the tool declares one. */
  output?: z.ZodType
  /** Parallel with its siblings in a script (S2.2, S7.1); default false (exclusive). */
  concurrencySafe?: boolean
  /** Runs the framework tool; returns its value (must be JSON, S6.1). */
  execute(args: unknown, exec: ToolExecution): Promise<unknown>
  /** The framework's approval rule for one call; absent means none. */
  approval?(args: unknown, exec: ToolExecution): Promise<ForeignApproval>
}

/** What a registration returns. */
export interface RegisteredTools {
  /** The names scripts call, sorted. */
  readonly names: readonly string[]
  /** Tools of the framework's set that were not registered, and why (no `execute`, provider-run …). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[]
  /** Unregister them all and remove their approval listener. */
  dispose(): Promise<void>
}

const ANY_JSON_OBJECT = z.record(z.string(), z.any())

/**
 * A `concurrent` option lists tools of the set being registered: a misspelt name would leave that
 * tool exclusive (S2.2) without a word, so it is refused.
 * @throws TypeError naming `fn`, the unknown names and the tools there are.
 */
export function checkConcurrentNames(fn: string, concurrent: true | readonly string[] | undefined, names: readonly string[]): void {
  if (concurrent === undefined || concurrent === true) return
  if (!Array.isArray(concurrent)) throw new TypeError(`${fn}: options.concurrent takes true or an array of tool names.`)
  const unknown = concurrent.filter((name) => !names.includes(name))
  if (unknown.length === 0) return
  const listed = unknown.map((name) => JSON.stringify(name)).join(', ')
  throw new TypeError(`${fn}: options.concurrent names ${listed}, not ${unknown.length === 1 ? 'a tool' : 'tools'} of this set; the tools are ${[...names].sort().join(', ')}.`)
}

/**
 * Register `tools` on `host` in one plugin fiber named `plugin` (disposing it removes them all).
 * @throws ToolDefinitionError when a name is invalid or already registered (nothing of this set
 *   stays registered then).
 */
export async function registerForeignTools(
  host: { ctx: Context },
  plugin: string,
  tools: readonly ForeignTool[],
  skipped: RegisteredTools['skipped'],
): Promise<RegisteredTools> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const fiber = host.ctx.plugin({
    name: plugin,
    inject: ['tools'],
    apply: (ctx: Context) => {
      for (const tool of tools) ctx.tools.register(ptcTool(tool))
      ctx.on('tools/pre-execute', async (execution, next) => {
        const tool = byName.get(execution.name)
        if (!tool?.approval || ctx.tools.get(execution.name) === undefined) return next()
        return combine(await next(), await tool.approval(execution.arguments, execution as ToolExecution))
      })
    },
  })
  try {
    await fiber
  } catch (error) {
    await fiber.dispose()
    throw error
  }
  return { names: [...byName.keys()].sort(), skipped, dispose: async () => void (await fiber.dispose()) }
}

/**
 * The stricter of what the rest of the waterfall decided and the framework's rule: a denial or a
 * cancel below stands; the rule's denial denies; its `ask` turns an `allow` into an `ask`
 * (and adds its reason to an `ask` from below), so no listener order can skip an approval.
 */
function combine(below: PreToolDecision, rule: ForeignApproval): PreToolDecision {
  if (below.kind === 'deny' || below.kind === 'cancel') return below
  if (rule.kind === 'deny') return { kind: 'deny', reason: rule.reason || 'Denied by the tool\'s approval rule.' }
  if (rule.kind !== 'ask') return below
  const reason = rule.reason || 'the tool asks for approval'
  if (below.kind === 'ask') return { ...below, reason: below.reason ? `${below.reason}; ${reason}` : reason }
  return { kind: 'ask', reason }
}

/** The ptc tool for one framework tool. */
function ptcTool(tool: ForeignTool) {
  const parameters = tool.parameters ?? (tool.parametersJsonSchema ? jsonSchemaCheck(tool.parametersJsonSchema, { label: `${tool.name} input` }) : ANY_JSON_OBJECT)
  const output = tool.output ?? (tool.outputJsonSchema ? jsonSchemaCheck(tool.outputJsonSchema, { label: `${tool.name} output` }) : z.any())
  const jsonSchemas = {
    ...(!tool.parameters && tool.parametersJsonSchema && { parameters: tool.parametersJsonSchema }),
    // Without a declared output the value is whatever the tool returns: `unknown` in ToolOutputMap.
    ...(!tool.output && { output: tool.outputJsonSchema ?? {} }),
  }
  return defineTool({
    name: tool.name,
    description: tool.description.trim() || `The ${tool.name} tool.`,
    parameters,
    ...(Object.keys(jsonSchemas).length > 0 && { jsonSchemas }),
    output: {
      schema: output,
      render: (_args, value) => [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined' }],
    },
    ...(tool.concurrencySafe === true && { isConcurrencySafe: () => true }),
    execute: async (args, exec) => (await tool.execute(args, exec as ToolExecution)) as JsonValue,
  })
}
