/**
 * `createCodeTool` for the Vercel AI SDK (issue 15): `run_code` as an AI SDK `Tool`, in the
 * manner of Cloudflare codemode's `createCodeTool`. See `code-tool-core.ts` for what every code
 * tool shares.
 */
import type { Tool } from 'ai'
import type { ContentBlock, RunCodeValue } from '../../index.ts'
import { type CodeToolInput, type CodeToolOptions, checkCodeInput, codeToolDescription, codeToolInputSchema, contentText, planCodeTool, runCode } from '../code-tool-core.ts'
import { ai } from './ai-peer.ts'

/** Options of {@link createCodeTool}: see `CodeToolOptions` (host, agent, runOptions, name). */
export type AiCodeToolOptions = CodeToolOptions

/** How many finished runs keep their model content for `toModelOutput` (oldest dropped first). */
const KEPT_CONTENTS = 64

/**
 * `run_code` as an AI SDK tool; put it in `generateText({ tools: { run_code: createCodeTool({ host }) } })`.
 * - `description`: `run_code`'s text plus the declarations of the tools a script may call,
 *   resolved at each step (so tools registered later appear).
 * - `inputSchema`: `{ code }` plus the allowed `runOptions`; other keys are refused.
 * - `execute(input, { abortSignal })`: runs `run_code` through the host's pipeline, the AI SDK's
 *   `abortSignal` fused in as the caller's signal (aborting cancels the run); resolves to the
 *   `run_code` canonical value `{ status, value?, error?, diagnostics?, logs, toolCalls, durationMs }`.
 *   Throws (a tool error for the model) only when the pipeline refused the call itself.
 * - `toModelOutput`: the content the pipeline rendered for the model, output caps applied and
 *   oversized parts spilled to a file (S9.7); the value as JSON when that content is gone (a
 *   conversation restored in another process).
 * @throws TypeError (one line) for a missing host or an unknown run option.
 */
export function createCodeTool(options: AiCodeToolOptions): Tool<CodeToolInput, RunCodeValue> {
  const plan = planCodeTool(options, 'ai-sdk')
  const contents = new Map<string, readonly ContentBlock[]>()
  return ai.tool({
    description: () => codeToolDescription(plan),
    inputSchema: ai.jsonSchema<CodeToolInput>(() => codeToolInputSchema(plan) as Parameters<typeof ai.jsonSchema>[0] & object, {
      validate: (value) => {
        const checked = checkCodeInput(plan, value)
        return checked.ok ? { success: true, value: checked.input } : { success: false, error: new TypeError(checked.message) }
      },
    }),
    execute: async (input: CodeToolInput, { toolCallId, abortSignal }): Promise<RunCodeValue> => {
      const run = await runCode(plan, input, abortSignal)
      contents.set(toolCallId, run.content)
      while (contents.size > KEPT_CONTENTS) contents.delete(contents.keys().next().value!)
      return run.value
    },
    toModelOutput: ({ toolCallId, output }) => {
      const content = contents.get(toolCallId)
      contents.delete(toolCallId)
      if (!content) return { type: 'json' as const, value: output as never }
      return { type: 'text' as const, value: contentText(content) }
    },
  })
}
