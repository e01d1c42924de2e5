/**
 * `ptc-runner/openai-agents` driven by the real OpenAI Agents SDK (`@openai/agents` 0.20): a real
 * `Runner` (tracing disabled) runs an `Agent` whose model is the SDK's own `ScriptedModel` (from
 * `@openai/agents/testing`): it calls the code tool, whose script calls the agent's function
 * tools registered with `registerAgentsTools`, each call through ptc's pipeline (issue 15).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, type AgentInputItem, Runner, tool } from '@openai/agents'
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCodeTool, type RegisteredTools, registerAgentsTools } from '../../src/adapters/openai-agents/index.ts'
import { createHost, type Host, type RunCodeValue, type ToolResult } from '../../src/index.ts'
import { meeting } from '../helpers/meeting.ts'

/** The text of the `function_call_output` the model was given, if any. */
function toolOutputIn(input: string | AgentInputItem[]): string | undefined {
  if (typeof input === 'string') return undefined
  const item = input.find((entry) => entry.type === 'function_call_result') as { output?: unknown } | undefined
  const output = item?.output as string | { text?: string } | undefined
  return typeof output === 'string' ? output : output?.text
}

/** A scripted model: turn 1 calls `run_code` with `code`, turn 2 answers with the tool output it read. */
function codeModel(code: string): ScriptedModel {
  return new ScriptedModel([
    [functionCall('run_code', { code }, { callId: 'call-1' })],
    modelResponder((call) => [assistantMessage(`model saw: ${toolOutputIn(call.request.input)}`)]),
  ])
}

describe('ptc-runner/openai-agents with a real Runner and the SDK ScriptedModel (issue 15)', { timeout: 60_000 }, () => {
  let host: Host
  let registered: RegisteredTools
  const runner = new Runner({ tracingDisabled: true })
  const both = meeting(2)
  let hangStarted: () => void = () => {}
  let hangSignal: AbortSignal | undefined
  const results: ToolResult[] = []
  const cityTools = [
    tool({
      name: 'forecast',
      description: 'Forecast for a city.',
      parameters: z.object({ city: z.string(), days: z.number().int() }),
      outputSchema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
      execute: async ({ city, days }) => {
        await both.enter()
        return { city, celsius: [20, 21, 22].slice(0, days) }
      },
    }),
    tool({
      name: 'population',
      description: 'Population of a city.',
      parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: true as const },
      strict: false,
      execute: async (input) => {
        await both.enter()
        return { people: String((input as { city: string }).city).length * 100_000 }
      },
    }),
    tool({ name: 'delete_city', description: 'Delete a city.', parameters: z.object({ city: z.string() }), needsApproval: true, execute: async () => 'deleted' }),
    tool({
      name: 'wait_forever',
      description: 'Never finishes on its own.',
      parameters: z.object({}),
      errorFunction: null,
      execute: (_input, _context, details) =>
        new Promise<string>((_resolve, reject) => {
          hangSignal = details?.signal
          details?.signal?.addEventListener('abort', () => reject(new Error('aborted')))
          hangStarted()
        }),
    }),
  ]

  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-agents-')), journal: false })
    host.ctx.on('tools/result', (result) => void results.push(result))
    registered = await registerAgentsTools(host, new Agent({ name: 'cities', tools: cityTools }), { concurrent: ['forecast', 'population'] })
  }, 60_000)
  afterAll(async () => {
    await registered?.dispose()
    await host?.dispose()
  })

  it('S9.1 registers the function tools and types them from their JSON Schemas', async () => {
    expect(registered.names).toEqual(['delete_city', 'forecast', 'population', 'wait_forever'])
    const declarations = await host.ctx.ptc.declarations({ embedded: true })
    expect(declarations).toContain('forecast(args: { city: string; days: number }): Promise<{ city: string; celsius: number[] }>')
    expect(declarations).toContain('population(args: { city: string; [k: string]: unknown }): Promise<unknown>')
    expect(createCodeTool({ host }).description).toContain(declarations.trimEnd())
  })

  it('S2.2 a concurrent name that is not one of the tools (a typo) is refused, not left exclusive without a word', async () => {
    await expect(registerAgentsTools(host, cityTools, { concurrent: ['forcast'], plugin: 'typo' })).rejects.toThrow(
      'registerAgentsTools: options.concurrent names "forcast", not a tool of this set; the tools are delete_city, forecast, population, wait_forever.',
    )
    expect(host.ctx.tools.list().filter((tool) => tool.name === 'forecast')).toHaveLength(1)
  })

  it('S9.1 S7.2 the model calls run_code, the script calls two agent tools in parallel, and the output reaches the next turn', async () => {
    const code = `const [f, p] = await Promise.all([tools.forecast({ city: 'Oslo', days: 2 }), tools.population({ city: 'Oslo' })])
return { celsius: f.celsius, people: (p as { people: number }).people }`
    const model = codeModel(code)
    const result = await runner.run(new Agent({ name: 'planner', model, tools: [createCodeTool({ host })] }), 'How is Oslo?')
    expect(both.widest).toBe(2)
    expect(result.finalOutput).toMatch(/^model saw: status: ok \(2 tool calls/)
    expect(result.finalOutput).toContain('400000')
    const output = result.newItems.find((item) => item.type === 'tool_call_output_item') as { customData?: { runCode?: RunCodeValue } }
    expect(output.customData?.runCode).toMatchObject({ status: 'ok', value: { celsius: [20, 21], people: 400_000 }, toolCalls: 2 })
    // What the model was sent: run_code with the declarations of the tools scripts may call.
    const sent = model.firstCall!.request.tools.find((entry) => entry.type === 'function' && entry.name === 'run_code') as { description: string } | undefined
    expect(sent?.description).toContain('forecast(args: { city: string; days: number }): Promise<{ city: string; celsius: number[] }>')
    model.assertComplete()
  })

  it('S9.3 S5.3 a needsApproval agent tool called from a script is denied headless: a ToolCallError in the script', async () => {
    const code = `try { await tools.delete_city({ city: 'Oslo' }); return 'ran' } catch (error) { return error instanceof ToolCallError ? error.toolName + ': ' + error.message : 'other' }`
    const result = await runner.run(new Agent({ name: 'planner', model: codeModel(code), tools: [createCodeTool({ host })] }), 'Delete Oslo.')
    expect(result.finalOutput).toMatch(/delete_city: This call needs approval \(needsApproval of the Agents SDK tool delete_city\).*denied/)
  })

  it('S8.2 S5.3 a needsApproval function answering a truthy non-boolean asks, as the Agents SDK does (fail closed): denied headless, the tool not run', async () => {
    let ran = 0
    // Typed as boolean; a JavaScript tool author may return 1 or 'yes', which the SDK's runner treats as true.
    const truthy = tool({ name: 'wipe_city', description: 'Wipe a city.', parameters: z.object({ city: z.string() }), needsApproval: async () => 'yes' as never, execute: async () => String(++ran) })
    await registerAgentsTools(host, [truthy], { plugin: 'truthy-approval' })
    const code = `try { await tools.wipe_city({ city: 'Oslo' }); return 'ran' } catch (error) { return error instanceof ToolCallError ? error.toolName + ': ' + error.message : 'other' }`
    const result = await runner.run(new Agent({ name: 'planner', model: codeModel(code), tools: [createCodeTool({ host })] }), 'Wipe Oslo.')
    expect(result.finalOutput).toMatch(/wipe_city: This call needs approval \(needsApproval of the Agents SDK tool wipe_city\).*denied/)
    expect(ran).toBe(0)
  })

  it("S9.3 a tool's errorFunction decides a failure, as for the model: the SDK's default answers its generic text as the value, errorFunction: null rejects with the tool's message", async () => {
    const failing = [
      tool({ name: 'boom_default', description: 'Throws.', parameters: z.object({}), execute: async () => Promise.reject(new Error('kaput')) }),
      tool({ name: 'boom_null', description: 'Throws.', parameters: z.object({}), errorFunction: null, execute: async () => Promise.reject(new Error('kaput2')) }),
    ]
    const extra = await registerAgentsTools(host, failing, { plugin: 'failing' })
    try {
      const code = `const seen = []
for (const call of [() => tools.boom_default({}), () => tools.boom_null({})]) {
  try { seen.push('value: ' + (await call())) } catch (error) { seen.push(error instanceof ToolCallError ? 'ToolCallError: ' + error.message : 'other') }
}
return seen`
      const result = await host.ctx.ptc.run(code, { typecheck: false })
      expect(result).toMatchObject({ status: 'ok', value: ['value: An error occurred while running the tool. Please try again.', expect.stringMatching(/^ToolCallError: .*kaput2/)] })
    } finally {
      await extra.dispose()
    }
  })

  it('issue 15 a code tool with needsApproval is an interruption of the run; state.approve resumes it and the script runs', async () => {
    const before = results.filter((result) => result.name === 'run_code').length
    const agent = new Agent({ name: 'planner', model: codeModel('return 6 * 7'), tools: [createCodeTool({ host, needsApproval: true })] })
    const first = await runner.run(agent, 'Compute.')
    expect(first.interruptions).toHaveLength(1)
    expect(first.interruptions[0]!.rawItem).toMatchObject({ type: 'function_call', name: 'run_code' })
    expect(results.filter((result) => result.name === 'run_code')).toHaveLength(before)
    first.state.approve(first.interruptions[0]!)
    const resumed = await runner.run(agent, first.state)
    expect(resumed.interruptions).toEqual([])
    expect(resumed.finalOutput).toMatch(/^model saw: status: ok .*\n.*42/s)
  })

  it('S6.3 aborting the run through its signal cancels the script and the tool call inside it', async () => {
    const started = new Promise<void>((resolve) => (hangStarted = resolve))
    const controller = new AbortController()
    void started.then(() => controller.abort(new Error('user pressed stop')))
    const agent = new Agent({ name: 'planner', model: codeModel('await tools.wait_forever({}); return "never"'), tools: [createCodeTool({ host })] })
    await expect(runner.run(agent, 'Wait.', { signal: controller.signal })).rejects.toThrow()
    await expect.poll(() => hangSignal?.aborted).toBe(true)
    await expect.poll(() => results.find((result) => result.name === 'run_code' && JSON.stringify(result.arguments).includes('wait_forever'))?.error?.kind).toBe('cancelled')
  })

  it('issue 15 createCodeTool({ host }).invoke runs code through the pipeline; a refused input reaches the model in one line', async () => {
    const codeTool = createCodeTool({ host })
    const { RunContext } = await import('@openai/agents')
    expect(await codeTool.invoke(new RunContext(), JSON.stringify({ code: 'return 6 * 7' }))).toMatch(/^status: ok .*\n[\s\S]*42/)
    expect(await codeTool.invoke(new RunContext(), JSON.stringify({ code: 'return 1', timeoutMs: 5 }))).toBe('run_code failed: run_code does not take "timeoutMs"; it takes only code.')
  })
})
