/**
 * What the code tools of every framework adapter share (issue 15, SPEC S9.4): `run_code` offered
 * as a framework's own tool. The description is the one `ptc serve` gives (`runCodeDescription`:
 * the tool's text plus the declarations of the tools a script may call); the input is `{ code }`
 * plus the per-run options the deployment lets the model set; a call goes through the host's
 * pipeline as `run_code` (so every policy, limit and cap applies) with the framework's abort
 * signal as the caller's signal (S6.3). Uses only the public API.
 */
import { type Context, type ContentBlock, RUN_CODE, type RunCodeValue, runCodeDescription, type ToolResult } from '../index.ts'

/** The per-run options of `run_code` a deployment may let the model set (S9.4). */
export type CodeToolRunOption = 'typecheck' | 'timeoutMs'

/** Options every adapter's `createCodeTool` takes. */
export interface CodeToolOptions {
  /** A host from `createHost` (or anything with its `ctx`): the pipeline `run_code` runs in. */
  host: { ctx: Context }
  /**
   * The agent (session) the calls are made for (S5.3: without one, every `ask` denies); it names
   * the spill folder and journal entries. Default: the adapter's name (`ai-sdk`, `openai-agents`).
   */
  agent?: string
  /** Which `run_code` options the model may set besides `code` (default none: the deployment's defaults hold). */
  runOptions?: readonly CodeToolRunOption[]
  /** The tool's name as the model sees it (default `run_code`). */
  name?: string
}

const RUN_OPTIONS: readonly CodeToolRunOption[] = ['typecheck', 'timeoutMs']

/** The input the model sends: the script and the allowed run options. */
export interface CodeToolInput {
  code: string
  typecheck?: boolean
  timeoutMs?: number
}

/** The settled options of one code tool, checked once when it is made. */
export interface CodeToolPlan {
  readonly host: { ctx: Context }
  readonly agent: string
  readonly name: string
  readonly runOptions: readonly CodeToolRunOption[]
}

/**
 * Check `options` once.
 * @throws TypeError (one line) for a missing host, runOptions that are not an array, an unknown run
 *   option or an empty name.
 */
export function planCodeTool(options: CodeToolOptions, defaultAgent: string): CodeToolPlan {
  if (!options || typeof options.host?.ctx?.tools?.execute !== 'function') {
    throw new TypeError('createCodeTool({ host }) needs a host: pass the result of `await createHost()`.')
  }
  const runOptions = options.runOptions ?? []
  // From plain JavaScript an object (\`{ timeoutMs: true }\`) or a string arrives here too (a trial).
  if (!Array.isArray(runOptions)) {
    throw new TypeError(`createCodeTool: runOptions must be an array of option names, e.g. ['timeoutMs'], got ${JSON.stringify(runOptions) ?? typeof runOptions}; the model may set ${RUN_OPTIONS.join(' and ')}.`)
  }
  const unknown = runOptions.filter((option) => !RUN_OPTIONS.includes(option))
  if (unknown.length > 0) throw new TypeError(`createCodeTool: unknown run option ${JSON.stringify(unknown[0])}; the model may set ${RUN_OPTIONS.join(' and ')}.`)
  const name = options.name ?? RUN_CODE
  if (typeof name !== 'string' || name.trim() === '') throw new TypeError('createCodeTool: name must be a non-empty string.')
  return { host: options.host, agent: options.agent ?? defaultAgent, name, runOptions }
}

/** The `run_code` tool of the host, or a one-line error saying the host has none. */
function runCodeSchema(plan: CodeToolPlan) {
  const schema = plan.host.ctx.tools.schemas().find((entry) => entry.name === RUN_CODE)
  if (!schema) throw new Error('The host has no run_code tool: build it with createHost(), which installs PTC mode.')
  return schema
}

/** What the model reads: `run_code`'s description with the current declarations (synchronous). */
export function codeToolDescription(plan: CodeToolPlan): string {
  return runCodeDescription(runCodeSchema(plan).description, plan.host.ctx.ptc.declarationsSync({ embedded: true }))
}

/**
 * The JSON Schema of the input: `run_code`'s own parameters (S2.1) with only `code` and the
 * allowed run options, no other keys.
 */
export function codeToolInputSchema(plan: CodeToolPlan): Record<string, unknown> {
  const parameters = runCodeSchema(plan).parameters as { properties?: Record<string, unknown> }
  const keep = ['code', ...plan.runOptions]
  const properties = Object.fromEntries(Object.entries(parameters.properties ?? {}).filter(([key]) => keep.includes(key)))
  return { type: 'object', properties, required: ['code'], additionalProperties: false }
}

/**
 * The input, or a one-line message saying what is wrong with it: `code` a string, only allowed
 * run options (the pipeline checks their values, S6.1).
 */
export function checkCodeInput(plan: CodeToolPlan, input: unknown): { ok: true; input: CodeToolInput } | { ok: false; message: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, message: `${plan.name} takes an object { code }.` }
  const record = input as Record<string, unknown>
  if (typeof record.code !== 'string') return { ok: false, message: `${plan.name}: code must be a string of TypeScript.` }
  const extra = Object.keys(record).filter((key) => key !== 'code' && !plan.runOptions.includes(key as CodeToolRunOption))
  if (extra.length > 0) {
    const allowed = plan.runOptions.length > 0 ? `; it takes code, ${plan.runOptions.join(', ')}` : '; it takes only code'
    return { ok: false, message: `${plan.name} does not take ${extra.map((key) => JSON.stringify(key)).join(', ')}${allowed}.` }
  }
  return { ok: true, input: record as unknown as CodeToolInput }
}

/** One finished run: the canonical value and the content the model reads (capped, spilled, S9.7). */
export interface CodeRun {
  readonly value: RunCodeValue
  readonly content: readonly ContentBlock[]
  readonly result: ToolResult
}

/**
 * Run `input` as a `run_code` call through the host's pipeline, with `signal` (the framework's
 * abort signal) as the caller's signal, so aborting it cancels the run (S6.3).
 * @throws Error (one line) when the input is not `{ code }` with allowed options, or when the
 *   pipeline refused the call itself (denied by policy, invalid options, cancelled before it ran):
 *   frameworks report a thrown tool error to the model. A script that fails is not thrown: it is
 *   a value whose `status` says how (`error`, `type-error`, `timeout`, `cancelled`, …).
 */
export async function runCode(plan: CodeToolPlan, input: unknown, signal: AbortSignal | undefined): Promise<CodeRun> {
  const checked = checkCodeInput(plan, input)
  if (!checked.ok) throw new Error(checked.message)
  const result = await plan.host.ctx.tools.execute({ name: RUN_CODE, arguments: checked.input }, { agent: plan.agent, ...(signal && { signal }) })
  if (result.isError || result.value === undefined) throw new Error(result.error?.message ?? 'run_code failed without a message.')
  return { value: result.value as unknown as RunCodeValue, content: result.content, result }
}

/** The text of `content` (text blocks joined by a blank line), for frameworks whose tool output is a string. */
export function contentText(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType}]`)).join('\n\n')
}
