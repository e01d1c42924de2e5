/**
 * PTC mode (SPEC S9) costs, all in one process with in-process isolation so they compare with a
 * raw isolated-vm round trip measured in the same run:
 * - a trivial `run_code` (`return 1`): `ctx.tools.execute(run_code)` end to end, pipeline
 *   included, without and with the (warm) type-checker. Its latency is measured with an untimed
 *   pause of PAUSE_MS before each run, as runs come a model turn apart: the isolate pool has
 *   refilled by then. The back-to-back case (no pause) also pays the refill, i.e. creating an
 *   isolate, about 5–15 ms on a loaded 2-core machine, and is what per-call costs subtract;
 * - per-call cost of 2,000 sequential and 2,000 parallel `await tools.noop({})` from a script,
 *   i.e. (run with 2,000 calls − trivial run) / 2,000;
 * - a 64 KB payload echoed from a script and back;
 * - the baseline: 2,000 sequential `Reference.apply` round trips (async host function, JSON
 *   string in and out) from a script in a raw isolated-vm context.
 */
import { Context } from 'cordis'
import ivm from 'isolated-vm'
import { z } from 'zod'
import { Ptc } from '../src/ptc/ptc-service.ts'
import * as runCodeTool from '../src/ptc/run-code-tool.ts'
import { defineTool } from '../src/tools/define-tool.ts'
import { ToolRegistry } from '../src/pipeline/tool-registry.ts'
import { section } from './harness.ts'

const CALLS = 2_000
const RAW = `raw isolated-vm: ${CALLS} sequential Reference.apply`
const SEQUENTIAL = `run_code: ${CALLS} sequential tools.noop()`
const PARALLEL = `run_code: ${CALLS} parallel tools.noop()`
const TRIVIAL = 'run_code: trivial script, back to back'
const LATENCY = 'run_code: trivial script, no type-check (pool refilled)'
const CHECKED = 'run_code: trivial script, warm type-check (pool refilled)'
const PAUSE_MS = 50
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
const PAYLOAD = 'run_code: 64 KB payload round trip'

let teardown: (() => Promise<void>) | undefined

export const ptc = section(
  'run_code (in-process isolation)',
  async () => {
    const root = new Context()
    await root.plugin(ToolRegistry)
    await root.plugin(Ptc, { isolation: 'inline', poolSize: 2, limits: { maxToolCalls: CALLS + 10, maxCallsInFlight: CALLS } } as never)
    await root.plugin(runCodeTool, { spillDir: '/tmp/ptc-bench-spill' })
    await root.plugin({
      name: 'bench-tools',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(
          defineTool({
            name: 'noop',
            description: 'Does nothing.',
            parameters: z.object({}),
            output: { schema: z.object({ ok: z.boolean() }), render: () => [{ type: 'text', text: 'ok' }] },
            isConcurrencySafe: () => true,
            execute: () => ({ ok: true }),
          }),
        )
        ctx.tools.register(
          defineTool({
            name: 'echo',
            description: 'Returns its text.',
            parameters: z.object({ text: z.string() }),
            output: { schema: z.object({ text: z.string() }), render: () => [{ type: 'text', text: 'echo' }] },
            isConcurrencySafe: () => true,
            execute: (args) => ({ text: args.text }),
          }),
        )
      },
    })
    const tools = root.tools
    const runCode = async (code: string, typecheck: boolean) => {
      const result = await tools.execute({ name: 'run_code', arguments: { code, typecheck } })
      const value = result.value as { status: string; error?: unknown } | undefined
      if (result.isError || value?.status !== 'ok') throw new Error(`bench script failed: ${JSON.stringify(result)}`)
    }
    const sequential = `for (let i = 0; i < ${CALLS}; i++) await tools.noop({})\nreturn 1`
    const parallel = `await Promise.all(Array.from({ length: ${CALLS} }, () => tools.noop({})))\nreturn 1`
    const payload = `const text = 'x'.repeat(65_536)\nconst back = await tools.echo({ text })\nreturn back.text.length`

    // The raw baseline: one context, an async host function behind a Reference.
    const isolate = new ivm.Isolate({ memoryLimit: 128 })
    const context = await isolate.createContext()
    await context.global.set('hostCall', new ivm.Reference(async (json: string) => json))
    const rawScript = await isolate.compileScript(
      `(async () => { for (let i = 0; i < ${CALLS}; i++) await hostCall.apply(undefined, ['{}'], { arguments: { copy: true }, result: { promise: true, copy: true } }) })()`,
    )
    teardown = async () => {
      context.release()
      isolate.dispose()
      for (const runtime of [...root.registry.values()]) for (const fiber of [...runtime.fibers]) await fiber.dispose()
    }
    return [
      { name: RAW, run: () => rawScript.run(context, { promise: true }), baseline: true },
      { name: SEQUENTIAL, run: () => runCode(sequential, false) },
      { name: PARALLEL, run: () => runCode(parallel, false) },
      { name: TRIVIAL, run: () => runCode('return 1', false) },
      { name: LATENCY, run: () => runCode('return 1', false), pause, iterations: 15 },
      { name: CHECKED, run: () => runCode('return 1', true), pause, iterations: 15 },
      { name: PAYLOAD, run: () => runCode(payload, false) },
    ]
  },
  {
    samples: 7,
    iterations: 3,
    warmup: 3,
    summary: (m) => {
      const raw = m[RAW]! / CALLS
      const seq = (m[SEQUENTIAL]! - m[TRIVIAL]!) / CALLS
      const par = (m[PARALLEL]! - m[TRIVIAL]!) / CALLS
      return [
        `raw isolated-vm round trip: ${raw.toFixed(2)} µs/call`,
        `run_code sequential call:   ${seq.toFixed(2)} µs/call (${(seq / raw).toFixed(2)}× raw; target ≤ 1.30×)`,
        `run_code parallel call:     ${par.toFixed(2)} µs/call (${(par / raw).toFixed(2)}× raw)`,
        `trivial run: ${(m[LATENCY]! / 1000).toFixed(2)} ms without type-check (target < 3 ms), ${(m[CHECKED]! / 1000).toFixed(2)} ms with a warm checker (target < 25 ms); back to back ${(m[TRIVIAL]! / 1000).toFixed(2)} ms`,
        `64 KB payload round trip run: ${(m[PAYLOAD]! / 1000).toFixed(2)} ms (${((m[PAYLOAD]! - m[TRIVIAL]!) / 1000).toFixed(2)} ms over a trivial run)`,
      ]
    },
  },
)
Object.defineProperty(ptc, 'teardown', { get: () => teardown })
