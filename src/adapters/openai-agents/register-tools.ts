/**
 * `registerAgentsTools` (issue 15): an Agents SDK agent's function tools registered as ptc tools,
 * so a script calls `await tools.weather({ city })` with generated types and each call runs
 * through the pipeline (SPEC S9.1). A tool's `needsApproval` becomes an `ask` answered by the
 * host's approval service (S5.1, S8.1; headless means deny, S5.3): a call from inside a script
 * cannot become a run interruption, since the script cannot be suspended and resumed later.
 */
import type { Agent, FunctionTool, Tool } from '@openai/agents'
import type { Context } from '../../index.ts'
import { checkConcurrentNames, type ForeignTool, type RegisteredTools, registerForeignTools } from '../foreign-tools.ts'
import { agents } from './agents-peer.ts'

/** Options of {@link registerAgentsTools}. */
export interface RegisterAgentsToolsOptions {
  /**
   * Tools whose calls from one script may run at the same time (S2.2: default none, calls of a
   * script run one at a time); `true` for every tool.
   */
  concurrent?: true | readonly string[]
  /** The context object the tools' `RunContext` carries (`runner.run(agent, input, { context })`). */
  context?: unknown
  /** The plugin fiber's name (default `openai-agents-tools`). */
  plugin?: string
}

/**
 * Register the function tools of `source` (an `Agent`, whose `tools` are read now, or a list of
 * tools) on `host`, one ptc tool each under the tool's name. The tool's JSON Schema `parameters`
 * types `ToolArgsMap` and validates arguments; an `outputSchema` types `ToolOutputMap` (a string
 * result is then parsed as the JSON it encodes), else the output is `unknown`. Each call invokes
 * the tool as the Runner would (`tool.invoke(runContext, json, { signal })`, the signal aborting
 * when the script's run ends), so the tool's own parsing, timeout and `errorFunction` apply: with
 * the SDK's default `errorFunction` a failing tool answers the script its generic error text;
 * with `errorFunction: null` it fails, a `ToolCallError` in the script. Hosted, computer, shell
 * and other non-function tools are listed in `skipped`.
 * @returns the registered names, the skipped ones, and `dispose()` to unregister them.
 * @throws ToolDefinitionError for a name ptc cannot use or one already registered.
 * @throws TypeError when `concurrent` names a tool that is not in `source`.
 */
export async function registerAgentsTools(host: { ctx: Context }, source: Agent<any, any> | readonly Tool<any>[], options: RegisterAgentsToolsOptions = {}): Promise<RegisteredTools> {
  const list = Array.isArray(source) ? (source as readonly Tool<any>[]) : (source as Agent<any, any> | undefined)?.tools
  if (!Array.isArray(list)) throw new TypeError('registerAgentsTools(host, source): source must be an Agent or an array of Agents SDK tools.')
  checkConcurrentNames('registerAgentsTools', options.concurrent, list.map((tool) => ('name' in tool && typeof tool.name === 'string' ? tool.name : tool.type)))
  const tools: ForeignTool[] = []
  const skipped: { name: string; reason: string }[] = []
  for (const tool of list) {
    if (tool.type === 'function') tools.push(foreignTool(tool, options))
    else skipped.push({ name: 'name' in tool && typeof tool.name === 'string' ? tool.name : tool.type, reason: `a ${tool.type} tool is not a function tool` })
  }
  return registerForeignTools(host, options.plugin ?? 'openai-agents-tools', tools, skipped)
}

function foreignTool(tool: FunctionTool<any, any, any>, options: RegisterAgentsToolsOptions): ForeignTool {
  const concurrent = options.concurrent === true || (options.concurrent ?? []).includes(tool.name)
  const runContext = () => new agents.RunContext(options.context)
  return {
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: tool.parameters as Record<string, unknown>,
    ...(tool.outputSchema && { outputJsonSchema: tool.outputSchema as Record<string, unknown> }),
    concurrencySafe: concurrent,
    execute: async (args, exec) => {
      const result = await tool.invoke(runContext(), JSON.stringify(args), { signal: exec.signal })
      return tool.outputSchema && typeof result === 'string' ? parsedOr(result) : result
    },
    approval: async (args, exec) =>
      // Any truthy answer asks, as the SDK's runner does (`if (needsApproval)`): fail closed.
      (await tool.needsApproval(runContext(), args as never, exec.callId)) ? { kind: 'ask', reason: `needsApproval of the Agents SDK tool ${tool.name}` } : { kind: 'none' },
  }
}

/** The JSON a string encodes, or the string itself when it is not JSON. */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
