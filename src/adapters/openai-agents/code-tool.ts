/**
 * `createCodeTool` for the OpenAI Agents SDK (issue 15): `run_code` as an Agents SDK function
 * tool (`tool({ name, description, parameters, execute })`). See `code-tool-core.ts` for what
 * every code tool shares.
 */
import type { FunctionTool, RunContext } from '@openai/agents'
import type { RunCodeValue } from '../../index.ts'
import { type CodeToolInput, type CodeToolOptions, codeToolDescription, codeToolInputSchema, contentText, planCodeTool, runCode } from '../code-tool-core.ts'
import { agents } from './agents-peer.ts'

/** Options of {@link createCodeTool}: `CodeToolOptions` (host, agent, runOptions, name) and the SDK's approval. */
export interface AgentsCodeToolOptions extends CodeToolOptions {
  /**
   * The Agents SDK's own approval of a whole script: `true` (or a function returning true) makes
   * each `run_code` call an interruption of the run (`result.interruptions`) to resolve with
   * `result.state.approve(item)` or `reject(item)` before it runs. Calls made from the script
   * are approved by the host's approval service instead (S8.1).
   */
  needsApproval?: boolean | ((runContext: RunContext, input: CodeToolInput, callId?: string) => Promise<boolean>)
}

/** How many finished runs keep their canonical value for `customData` (oldest dropped first). */
const KEPT_VALUES = 64

/**
 * `run_code` as an Agents SDK function tool; put it in `new Agent({ tools: [createCodeTool({ host })] })`.
 * - `description`: `run_code`'s text plus the declarations of the tools a script may call, read
 *   afresh whenever the SDK reads it (so tools registered later appear).
 * - `parameters`: `{ code }` plus the allowed `runOptions` (JSON Schema, non-strict).
 * - `execute`: runs `run_code` through the host's pipeline with the run's abort signal as the
 *   caller's signal; the model reads the rendered content (caps and spills applied, S9.7). The
 *   canonical `run_code` value is on the tool output item as `customData.runCode`
 *   (`{ status, value?, error?, logs, toolCalls, … }`).
 * - A refused call (policy, bad input) reaches the model as `run_code failed: <reason>`.
 * @throws TypeError (one line) for a missing host or an unknown run option.
 */
export function createCodeTool(options: AgentsCodeToolOptions): FunctionTool<unknown> {
  const plan = planCodeTool(options, 'openai-agents')
  const values = new Map<string, RunCodeValue>()
  const codeTool = agents.tool({
    name: plan.name,
    description: codeToolDescription(plan),
    parameters: codeToolInputSchema(plan) as never,
    strict: false,
    ...(options.needsApproval !== undefined && { needsApproval: options.needsApproval as never }),
    execute: async (input: unknown, _runContext, details) => {
      const run = await runCode(plan, input, details?.signal)
      const callId = details?.toolCall?.callId
      if (callId !== undefined) {
        values.set(callId, run.value)
        while (values.size > KEPT_VALUES) values.delete(values.keys().next().value!)
      }
      return contentText(run.content)
    },
    errorFunction: (_runContext, error) => `${plan.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    customDataExtractor: ({ toolCall }) => {
      const value = values.get(toolCall.callId)
      values.delete(toolCall.callId)
      return value === undefined ? undefined : { runCode: value }
    },
  })
  // The SDK copies `description` once; the declarations follow the registry instead.
  Object.defineProperty(codeTool, 'description', { get: () => codeToolDescription(plan), enumerable: true, configurable: true })
  return codeTool as FunctionTool<unknown>
}
