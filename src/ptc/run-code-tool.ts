/**
 * The `run_code` tool (SPEC S9.4): the transport of PTC mode, itself a registered tool, so every
 * policy that applies to tools applies to it too. Its canonical value is a `RunCodeValue`; its
 * model-facing content applies the output caps, and text over a cap is spilled to a file whose
 * path the model gets (S9.7, in `projectContent`, since spilling is I/O and `render` is pure).
 */
import { join, resolve } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import { untraced } from '../pipeline/cordis-adapter.ts'
import { Execution } from '../pipeline/execution.ts'
import { agentFolderName, spillFolder } from '../workspace/state-folder.ts'
import { defineTool } from '../tools/define-tool.ts'
import type { PtcConfig } from './ptc-config.ts'
import { RUN_CODE } from './ptc-service.ts'
import { maxWallClockMs, runDeadlineMs } from './run-deadline.ts'
import { DEFAULT_CAPS, type OutputCaps, renderRunCode, runCodeTexts, runCodeValueJsonSchema, runCodeValueSchema } from './run-code-value.ts'
import { pruneSpills, writeSpill } from './spill.ts'

export const name = 'run-code-tool'
export const inject = ['tools', 'ptc']

/**
 * `spillDir`: where oversized outputs go (default `<cwd>/.ptc/spill`); `spill: false` writes no
 * file (the text over a cap is cut and the cut noted, for a host with no state folder); caps in
 * characters.
 */
export interface Config extends Partial<OutputCaps> {
  spillDir?: string
  spill?: false
  /** `spillDir` is outside the workspace, so the model is told it cannot read the spill files. */
  spillOutside?: boolean
}

/**
 * Parameters of `run_code` (SPEC S9.4, S9.7): the script and per-run options. `timeoutMs`'s
 * description gives the host's default deadline and its cap in ms (`limits.wallClockMs`,
 * `maxWallClockMs` of the `PtcConfig`), so a model knows a larger value is capped.
 */
export function runCodeParameters(config: Pick<PtcConfig, 'limits' | 'maxWallClockMs'> = {}) {
  const cap = maxWallClockMs(config)
  const deadline = runDeadlineMs(config)
  return z.strictObject({
    code: z.string().describe('TypeScript to run. Call tools as `await tools.name(args)`; `return` a JSON value as the result.'),
    typecheck: z.boolean().optional().describe('Type-check before running (default true).'),
    timeoutMs: z.number().int().positive().optional().describe(`Wall-clock deadline of the run in ms (default ${deadline}; at most ${cap}: a larger value is capped).`),
  })
}

const DESCRIPTION =
  'Run TypeScript that calls tools as `await tools.name(args)` and returns JSON. ' +
  'Every call passes the same policy as a direct one; a failed or denied call rejects with ToolCallError {name, toolName, message}. ' +
  'Fan out with Promise.all (concurrency-safe tools overlap), filter and aggregate in code, return only what matters. ' +
  // Issue 11: what the result's `warnings` report (run-warnings.ts); the model must know to await.
  'Await every call: calls unfinished at return and unhandled rejections come back as warnings (after a rejected Promise.all, use Promise.allSettled).'

/**
 * The description a model reads for `run_code` wherever it is offered (`ptc serve`, the AI SDK
 * and Agents SDK code tools): the tool's own `description`, then the declarations of the tools a
 * script can call (typegen's `embedded` form, `ctx.ptc.declarations({ embedded: true })`).
 */
export function runCodeDescription(description: string, declarations: string): string {
  return `${description}\n\nThe tools a script can call, as TypeScript declarations:\n\n${declarations.trimEnd()}\n`
}

export function apply(ctx: Context, config: Config = {}) {
  const caps: OutputCaps = { ...DEFAULT_CAPS, ...config }
  const spillRoot = resolve(config.spillDir ?? spillFolder('.'))
  // The service itself, not a tracing proxy made at every run (issue 12); this plugin injects
  // `ptc`, so a new service restarts it.
  const ptc = untraced(ctx.ptc)
  ctx.tools.register(
    defineTool({
      name: RUN_CODE,
      // Its annotations are derived from the callable tools when served (server/exposed-tools.ts).
      title: 'Run TypeScript that calls tools',
      description: DESCRIPTION,
      parameters: runCodeParameters(ptc._config),
      jsonSchemas: { output: runCodeValueJsonSchema },
      output: {
        schema: runCodeValueSchema,
        render: (_args, value) => renderRunCode(value, caps),
      },
      execute: (args, exec) =>
        ptc.run(args.code, {
          ...(args.typecheck !== undefined && { typecheck: args.typecheck }),
          ...(args.timeoutMs !== undefined && { timeoutMs: args.timeoutMs }),
          signal: exec.signal,
          ...(exec.agent !== undefined && { agent: exec.agent }),
          parentToken: exec.token,
          parentCallId: exec.callId,
          // The pipeline answers the caller's stop without waiting for the run (S6.3): its cancellation says which calls were in flight.
          onCancelNote: (sentences) => Execution.noteCancel(exec, sentences),
        }),
      projectContent: ({ value, content, execution }) => {
        const { result, logs } = runCodeTexts(value)
        if ((result.length <= caps.maxResultChars && logs.length <= caps.maxLogChars) || config.spill === false) return [...content]
        // One folder per agent (session), so sessions never see each other's spills.
        const dir = join(spillRoot, agentFolderName(execution.agent))
        const id = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
        const spilled: { result?: string; logs?: string; outside?: boolean } = config.spillOutside ? { outside: true } : {}
        if (result.length > caps.maxResultChars) spilled.result = writeSpill(dir, `${id}-result.json`, result, spillRoot)
        if (logs.length > caps.maxLogChars) spilled.logs = writeSpill(dir, `${id}-logs.txt`, logs, spillRoot)
        pruneSpills(spillRoot, [spilled.result, spilled.logs].filter((file) => file !== undefined))
        return renderRunCode(value, caps, spilled)
      },
    }),
  )
}

