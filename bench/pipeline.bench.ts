/**
 * Per-call overhead of the whole pipeline (SPEC S3–S6) on a no-op tool: materialize + freeze,
 * validation, three `tools/pre-execute` listeners that call `next()`, one guard, the
 * `tools/execute` chain (no wrapper: the timeout plugin is not installed), output validation,
 * render, `tools/post-execute`, the frozen result and `tools/result` — against a direct
 * `await body(args)` of the same body in the same process.
 */
import { Context } from 'cordis'
import { z } from 'zod'
import { defineTool } from '../src/tools/define-tool.ts'
import { ToolRegistry } from '../src/pipeline/tool-registry.ts'
import { section } from './harness.ts'

const PIPELINE = 'tools.execute (3 policies + 1 guard)'

/** The no-op body, its arguments and the one call of it through the pipeline that both pipeline benches time. */
export const pipelineBody = async (args: { path: string; limit?: number }) => ({ ok: true, path: args.path })
export const pipelineCall = { name: 'noop', arguments: { path: 'src/index.ts', limit: 10 } }

/**
 * A registry with the `noop` tool behind 3 pass-through `tools/pre-execute` listeners and 1
 * guard: the set-up of this section and of the pipeline row of `call-path.bench.ts`.
 */
export async function pipelineBenchRoot(): Promise<Context> {
  const root = new Context()
  await root.plugin(ToolRegistry)
  await root.plugin({
    name: 'bench-policy',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(
        defineTool({
          name: 'noop',
          description: 'Does nothing.',
          parameters: { path: { type: 'string', required: true }, limit: { type: 'number' } },
          output: { schema: z.object({ ok: z.boolean(), path: z.string() }), render: (_args, value) => [{ type: 'text', text: value.path }] },
          execute: pipelineBody,
        }),
      )
      for (let index = 0; index < 3; index++) ctx.on('tools/pre-execute', (_execution, next) => next())
      ctx.tools.guard(() => undefined)
    },
  })
  return root
}

export const pipeline = section(
  'pipeline: one no-op tool call',
  async () => {
    const root = await pipelineBenchRoot()
    const call = pipelineCall
    // The registry as a caller holds it (an agent loop or the PTC bridge resolves `ctx.tools`
    // once); the last case adds cordis' per-access service lookup to every call, for reference.
    const tools = root.tools
    const check = await tools.execute(call)
    if (check.isError) throw new Error(`bench tool failed: ${JSON.stringify(check)}`)
    return [
      { name: 'direct await body(args)', run: () => pipelineBody(call.arguments), baseline: true },
      { name: PIPELINE, run: () => tools.execute(call) },
      { name: 'same, looking up root.tools on every call', run: () => root.tools.execute(call) },
    ]
  },
  {
    summary: (medians) => {
      const overhead = medians[PIPELINE]! - medians['direct await body(args)']!
      return [`pipeline overhead µs/call = median(pipeline) − median(direct) = ${overhead.toFixed(3)} µs (target ≤ 5 µs, idle machine)`]
    },
  },
)
