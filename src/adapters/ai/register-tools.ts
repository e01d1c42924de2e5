/**
 * `registerAiSdkTools` (issue 15): an AI SDK `ToolSet` registered as ptc tools, so a script calls
 * `await tools.weather({ city })` with generated types and each call runs through the pipeline
 * (SPEC S9.1). Approvals follow the AI SDK's own rule (`resolveToolApproval` in `ai` 7): a
 * `toolApproval` option decides first (a function for every call, or an entry per tool), else
 * the tool's deprecated `needsApproval`; `user-approval` becomes an `ask` answered by the host's
 * approval service (S5.1, S8.1; headless means deny, S5.3), `denied` a denial. Unlike `ai`, a
 * status it does not know fails closed (S8.2, `approval-status.ts`).
 */
import type { ToolApprovalConfiguration, ToolSet } from 'ai'
import type { Context, ToolExecution } from '../../index.ts'
import { checkConcurrentNames, type ForeignApproval, type ForeignTool, type RegisteredTools, registerForeignTools } from '../foreign-tools.ts'
import { ai } from './ai-peer.ts'
import { checkToolApproval, fromStatus } from './approval-status.ts'

/** Options of {@link registerAiSdkTools}. */
export interface RegisterAiSdkToolsOptions<TOOLS extends ToolSet = ToolSet> {
  /** The approval configuration you pass to `generateText({ toolApproval })`; wins over a tool's `needsApproval`. */
  toolApproval?: ToolApprovalConfiguration<TOOLS, unknown>
  /**
   * Tools whose calls from one script may run at the same time (S2.2: default none, calls of a
   * script run one at a time); `true` for every tool of the set.
   */
  concurrent?: true | readonly (keyof TOOLS & string)[]
  /** Per-tool context (`generateText({ toolsContext })`), handed to `execute` and approval functions. */
  toolsContext?: { [name in keyof TOOLS]?: unknown }
  /** Runtime context for `toolApproval` functions (`generateText({ runtimeContext })`). */
  runtimeContext?: unknown
  /** The plugin fiber's name (default `ai-sdk-tools`). */
  plugin?: string
}

type AnyTool = ToolSet[string]

/**
 * Register every tool of `toolSet` that has an `execute` (one ptc tool per key, same name) on
 * `host`. The input schema (zod, Standard Schema or `jsonSchema()`) types `ToolArgsMap` and
 * validates arguments; an `outputSchema` types `ToolOutputMap` and validates values, else the
 * output is `unknown`. `execute` gets `{ toolCallId, messages: [], abortSignal, context }`, the
 * signal aborting when the script's run ends; a streaming `execute` resolves to its last value.
 * Tools without `execute` and provider tools are listed in `skipped`.
 * @returns the registered names, the skipped ones, and `dispose()` to unregister them.
 * @throws ToolDefinitionError for a name ptc cannot use or one already registered.
 * @throws TypeError when `concurrent` names a tool that is not in `toolSet`.
 * @throws TypeError when `toolApproval` holds a status `ai` 7 does not define (a typo such as
 *   'user_approval', S8.2), naming the tool, the value and the accepted statuses; a function
 *   returning such a status denies that call instead.
 */
export async function registerAiSdkTools<TOOLS extends ToolSet>(
  host: { ctx: Context },
  toolSet: TOOLS,
  options: RegisterAiSdkToolsOptions<TOOLS> = {},
): Promise<RegisteredTools> {
  if (typeof toolSet !== 'object' || toolSet === null) throw new TypeError('registerAiSdkTools(host, toolSet): toolSet must be an object of AI SDK tools, as for generateText({ tools }).')
  checkConcurrentNames('registerAiSdkTools', options.concurrent, Object.keys(toolSet))
  checkToolApproval(options.toolApproval)
  const tools: ForeignTool[] = []
  const skipped: { name: string; reason: string }[] = []
  for (const [name, tool] of Object.entries(toolSet) as [string, AnyTool][]) {
    if (tool.type === 'provider') skipped.push({ name, reason: 'a provider tool runs at the provider, not here' })
    else if (typeof tool.execute !== 'function') skipped.push({ name, reason: 'it has no execute function (its result comes from the client)' })
    else tools.push(await foreignTool(name, tool, toolSet, options))
  }
  return registerForeignTools(host, options.plugin ?? 'ai-sdk-tools', tools, skipped)
}

async function foreignTool(name: string, tool: AnyTool, toolSet: ToolSet, options: RegisterAiSdkToolsOptions<any>): Promise<ForeignTool> {
  const input = schemaOf(tool.inputSchema)
  const output = tool.outputSchema === undefined ? undefined : schemaOf(tool.outputSchema)
  const context = (options.toolsContext as Record<string, unknown> | undefined)?.[name]
  const description = typeof tool.description === 'function' ? tool.description({ context }) : tool.description
  const concurrent = options.concurrent === true || (options.concurrent ?? []).includes(name)
  return {
    name,
    description: description ?? `The ${name} tool.`,
    ...(input.zod ? { parameters: input.zod } : { parametersJsonSchema: (await input.schema.jsonSchema) as Record<string, unknown> }),
    ...(output && (output.zod ? { output: output.zod } : { outputJsonSchema: (await output.schema.jsonSchema) as Record<string, unknown> })),
    concurrencySafe: concurrent,
    execute: async (args, exec) => {
      const validated = input.zod || !input.schema.validate ? args : await validate(name, input.schema, args)
      const result = tool.execute!(validated as never, { toolCallId: exec.callId, messages: [], abortSignal: exec.signal, context })
      return (await lastValue(result)) ?? null
    },
    approval: (args, exec) => approvalOf(name, tool, toolSet, options, args, exec, context),
  }
}

/** A zod 4 schema as is (ptc validates with it directly), anything else as the AI SDK's `Schema`. */
function schemaOf(schema: unknown): { zod?: import('zod').ZodType; schema: ReturnType<typeof ai.asSchema> } {
  const candidate = schema as { _zod?: unknown; safeParse?: unknown } | undefined
  const zod = candidate && typeof candidate === 'object' && '_zod' in candidate && typeof candidate.safeParse === 'function'
  return { ...(zod && { zod: schema as import('zod').ZodType }), schema: ai.asSchema(schema as never) }
}

async function validate(name: string, schema: ReturnType<typeof ai.asSchema>, args: unknown): Promise<unknown> {
  const checked = await schema.validate!(args)
  if (!checked.success) throw new TypeError(`Invalid arguments for "${name}": ${checked.error.message}`)
  return checked.value
}

/** A value, or the last value of an `AsyncIterable` (an AI SDK tool streaming preliminary results). */
async function lastValue(result: unknown): Promise<unknown> {
  const awaited = await result
  if (awaited === null || typeof awaited !== 'object' || !(Symbol.asyncIterator in awaited)) return awaited
  let last: unknown
  for await (const value of awaited as AsyncIterable<unknown>) last = value
  return last
}

/** The AI SDK's approval status for one call from a script, as `ai` 7's `resolveToolApproval` decides it. */
async function approvalOf(name: string, tool: AnyTool, toolSet: ToolSet, options: RegisterAiSdkToolsOptions<any>, input: unknown, exec: ToolExecution, context: unknown): Promise<ForeignApproval> {
  const { toolApproval, runtimeContext } = options
  const toolsContext = options.toolsContext ?? {}
  const toolCall = { type: 'tool-call', toolCallId: exec.callId, toolName: name, input }
  if (typeof toolApproval === 'function') return fromStatus(name, await toolApproval({ toolCall: toolCall as never, tools: toolSet as never, toolsContext: toolsContext as never, runtimeContext, messages: [] }))
  const entry = toolApproval && Object.hasOwn(toolApproval, name) ? (toolApproval as Record<string, unknown>)[name] : undefined
  if (entry != null) {
    const status = typeof entry === 'function' ? await entry(input, { toolCallId: exec.callId, messages: [], toolContext: context, runtimeContext }) : entry
    return fromStatus(name, status)
  }
  const needs = typeof tool.needsApproval === 'function' ? await tool.needsApproval(input as never, { toolCallId: exec.callId, messages: [], context }) : tool.needsApproval
  // Truthy, not just true, as ai 7 reads it: a rule that answers 'yes' must not run unasked (S8.2).
  return needs ? { kind: 'ask', reason: `needsApproval of the AI SDK tool ${name}` } : { kind: 'none' }
}
