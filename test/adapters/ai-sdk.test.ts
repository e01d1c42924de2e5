/**
 * `ptc-runner/ai` driven by the real AI SDK (`ai` 7): `generateText` with the SDK's own
 * `MockLanguageModelV4` (from `ai/test`) calls the code tool, whose script calls AI SDK tools
 * registered with `registerAiSdkTools`, each call through ptc's pipeline (issue 15).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateText, jsonSchema, type LanguageModel, stepCountIs, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCodeTool, registerAiSdkTools, type RegisteredTools } from '../../src/adapters/ai/index.ts'
import { createHost, type Host, type RunCodeValue, type ToolResult } from '../../src/index.ts'
import { meeting } from '../helpers/meeting.ts'

type Generate = Extract<ConstructorParameters<typeof MockLanguageModelV4>[0], object>['doGenerate']
type Prompt = Parameters<Extract<Generate, (...args: never[]) => unknown>>[0]['prompt']

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

/** A mock model: step 1 calls `run_code` with `code`, step 2 answers with the text of the tool result it was given. */
function codeModel(code: string): { model: LanguageModel; prompts: Prompt[]; toolDescriptions: (string | undefined)[] } {
  const prompts: Prompt[] = []
  const toolDescriptions: (string | undefined)[] = []
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt, tools }) => {
      prompts.push(prompt)
      toolDescriptions.push(...(tools ?? []).map((entry) => (entry.type === 'function' && entry.name === 'run_code' ? entry.description : undefined)))
      if (prompts.length === 1) {
        return { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input: JSON.stringify({ code }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage: USAGE, warnings: [] }
      }
      const toolMessage = prompt.find((message) => message.role === 'tool')
      return { content: [{ type: 'text', text: `model saw: ${JSON.stringify(toolMessage?.content)}` }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] }
    },
  })
  return { model, prompts, toolDescriptions }
}

describe('ptc-runner/ai with the real AI SDK and MockLanguageModelV4 (issue 15)', { timeout: 60_000 }, () => {
  let host: Host
  let registered: RegisteredTools
  const both = meeting(2)
  let hangStarted: () => void = () => {}
  let hangSignal: AbortSignal | undefined
  const results: ToolResult[] = []

  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-ai-')), journal: false })
    host.ctx.on('tools/result', (result) => void results.push(result))
    registered = await registerAiSdkTools(
      host,
      {
        forecast: tool({
          description: 'Forecast for a city.',
          inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
          outputSchema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
          execute: async ({ city, days }) => {
            await both.enter()
            return { city, celsius: [20, 21, 22].slice(0, days ?? 3) }
          },
        }),
        population: tool({
          description: 'Population of a city.',
          inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
          execute: async ({ city }) => {
            await both.enter()
            return { city, people: city.length * 100_000 }
          },
        }),
        delete_city: tool({ description: 'Delete a city.', inputSchema: z.object({ city: z.string() }), needsApproval: true, execute: async () => 'deleted' }),
        rename_city: tool({ description: 'Rename a city.', inputSchema: z.object({ city: z.string() }), execute: async () => 'renamed' }),
        wait_forever: tool({
          description: 'Never finishes on its own.',
          inputSchema: z.object({}),
          execute: (_input, { abortSignal }) =>
            new Promise((_resolve, reject) => {
              hangSignal = abortSignal
              abortSignal?.addEventListener('abort', () => reject(new Error('aborted')))
              hangStarted()
            }),
        }),
        ask_user: tool({ description: 'Answered by the client.', inputSchema: z.object({ question: z.string() }) }),
      },
      { concurrent: ['forecast', 'population'], toolApproval: { rename_city: { type: 'denied', reason: 'Renaming is not allowed here.' } } },
    )
  }, 60_000)
  afterAll(async () => {
    await registered?.dispose()
    await host?.dispose()
  })

  it('issue 15 createCodeTool({ host }).execute({ code: "return 6 * 7" }) gives status ok and value 42', async () => {
    const value = await createCodeTool({ host }).execute!({ code: 'return 6 * 7' }, { toolCallId: 't1', messages: [], context: undefined })
    expect(value).toMatchObject({ status: 'ok', value: 42, toolCalls: 0 })
  })

  it('S2.2 a concurrent name that is not in the tool set (a typo) is refused, not left exclusive without a word', async () => {
    const set = { forecast: tool({ description: 'Forecast.', inputSchema: z.object({}), execute: async () => 1 }) }
    await expect(registerAiSdkTools(host, set, { concurrent: ['forcast' as 'forecast'], plugin: 'typo' })).rejects.toThrow(
      'registerAiSdkTools: options.concurrent names "forcast", not a tool of this set; the tools are forecast.',
    )
  })

  it('S9.1 registers every tool with an execute, lists the others as skipped, and types them in the declarations', async () => {
    expect(registered.names).toEqual(['delete_city', 'forecast', 'population', 'rename_city', 'wait_forever'])
    expect(registered.skipped).toEqual([{ name: 'ask_user', reason: expect.stringContaining('no execute') }])
    const declarations = await host.ctx.ptc.declarations({ embedded: true })
    expect(declarations).toContain('forecast(args: { city: string; days?: number }): Promise<{ city: string; celsius: number[] }>')
    expect(declarations).toContain('population(args: { city: string }): Promise<unknown>')
    const description = createCodeTool({ host }).description as (options: { context: unknown }) => string
    expect(description({ context: undefined })).toContain(declarations.trimEnd())
  })

  it('S9.1 S7.2 the model calls run_code, the script calls two AI SDK tools in parallel, and the result reaches the next step', async () => {
    const code = `const [f, p] = await Promise.all([tools.forecast({ city: 'Oslo', days: 2 }), tools.population({ city: 'Oslo' })])
return { celsius: f.celsius, people: (p as { people: number }).people }`
    const { model, prompts, toolDescriptions } = codeModel(code)
    const result = await generateText({ model, prompt: 'How is Oslo?', tools: { run_code: createCodeTool({ host }) }, stopWhen: stepCountIs(3) })
    expect(both.widest).toBe(2)
    // What the model was sent at each step: run_code with the declarations of the tools scripts may call.
    expect(toolDescriptions).toHaveLength(2)
    for (const description of toolDescriptions) expect(description).toContain('forecast(args: { city: string; days?: number }): Promise<{ city: string; celsius: number[] }>')
    const output = result.steps[0]!.toolResults[0]!.output as RunCodeValue
    expect(output).toMatchObject({ status: 'ok', value: { celsius: [20, 21], people: 400_000 }, toolCalls: 2 })
    expect(prompts).toHaveLength(2)
    // toModelOutput: the model read the rendered content, not the raw value object.
    const toolPart = prompts[1]!.find((message) => message.role === 'tool')!.content[0] as { type: string; output: { type: string; value: string } }
    expect(toolPart.output.type).toBe('text')
    expect(toolPart.output.value).toContain('400000')
    expect(result.text).toContain('400000')
  })

  it('S9.3 S5.3 a needsApproval tool is denied headless and a toolApproval denial carries its reason: both ToolCallError in the script', async () => {
    const code = `const caught: string[] = []
for (const call of [() => tools.delete_city({ city: 'Oslo' }), () => tools.rename_city({ city: 'Oslo' })]) {
  try { await call() } catch (error) { if (error instanceof ToolCallError) caught.push(error.toolName + ': ' + error.message) }
}
return caught`
    const value = (await createCodeTool({ host }).execute!({ code }, { toolCallId: 't2', messages: [], context: undefined })) as RunCodeValue
    expect(value.status).toBe('ok')
    expect(value.value).toEqual([expect.stringMatching(/^delete_city: .*needs approval.*denied/), 'rename_city: Renaming is not allowed here.'])
  })

  it('S8.1 an approval responder of the host lets one needsApproval call run (allowed-once)', async () => {
    const asked: string[] = []
    const stop = host.ctx.approval.respond((request) => (asked.push(request.execution.name), 'allowed-once'))
    try {
      const value = (await createCodeTool({ host }).execute!({ code: `return await tools.delete_city({ city: 'Oslo' })` }, { toolCallId: 't3', messages: [], context: undefined })) as RunCodeValue
      expect(value).toMatchObject({ status: 'ok', value: 'deleted' })
      expect(asked).toEqual(['delete_city'])
    } finally {
      stop()
    }
  })

  it('S6.3 aborting generateText through abortSignal cancels the run and the tool call inside it', async () => {
    const started = new Promise<void>((resolve) => (hangStarted = resolve))
    const controller = new AbortController()
    void started.then(() => controller.abort(new Error('user pressed stop')))
    const { model } = codeModel('await tools.wait_forever({}); return "never"')
    await expect(generateText({ model, prompt: 'Wait.', tools: { run_code: createCodeTool({ host }) }, stopWhen: stepCountIs(3), abortSignal: controller.signal })).rejects.toThrow()
    // The SDK rejects at once; the run ends as its cancellation reaches the isolate and the tool.
    await expect.poll(() => hangSignal?.aborted).toBe(true)
    const ended = (name: string) => results.find((result) => result.name === name && result.arguments && JSON.stringify(result.arguments).includes('wait_forever'))
    await expect.poll(() => ended('run_code')?.error?.kind).toBe('cancelled')
    expect(results.find((result) => result.name === 'wait_forever')?.error?.kind).toBe('cancelled')
  })

  it('issue 15 the input is { code } plus only the run options the deployment allows; others are refused in one line', async () => {
    const plain = createCodeTool({ host })
    const withTimeout = createCodeTool({ host, runOptions: ['timeoutMs'] })
    const schemaOf = (codeTool: typeof plain) => (codeTool.inputSchema as { jsonSchema: { properties: Record<string, unknown> } }).jsonSchema
    expect(Object.keys(schemaOf(plain).properties)).toEqual(['code'])
    expect(Object.keys(schemaOf(withTimeout).properties)).toEqual(['code', 'timeoutMs'])
    await expect(plain.execute!({ code: 'return 1', timeoutMs: 5 } as never, { toolCallId: 't4', messages: [], context: undefined })).rejects.toThrow('run_code does not take "timeoutMs"; it takes only code.')
    expect(() => createCodeTool({ host, runOptions: ['memoryMb' as never] })).toThrow('unknown run option "memoryMb"')
    // Not an array (plain JavaScript): the same kind of one-line error, not `runOptions.filter is not a function`.
    for (const runOptions of [{ timeoutMs: true }, 'timeoutMs', 5]) {
      expect(() => createCodeTool({ host, runOptions: runOptions as never })).toThrow(/^createCodeTool: runOptions must be an array of option names/)
    }
    expect(() => createCodeTool({} as never)).toThrow('needs a host')
  })

  it('S6.1 invalid arguments for a JSON-Schema tool are a ToolCallError naming the problem', async () => {
    const value = (await createCodeTool({ host }).execute!({ code: `try { await tools.population({ town: 'Oslo' } as never) } catch (error) { return (error as Error).message }` }, { toolCallId: 't5', messages: [], context: undefined })) as RunCodeValue
    expect(value.status).toBe('ok')
    expect(value.value).toMatch(/Invalid arguments for "population".*city/s)
  })

  it('S5.1 a toolApproval function decides for every call: user-approval asks the host, approved leaves it to ptc policy', async () => {
    const asked: string[] = []
    const stop = host.ctx.approval.respond((request) => (asked.push(`${request.execution.name}: ${request.reason}`), 'allowed-once'))
    const extra = await registerAiSdkTools(
      host,
      {
        audit: tool({ description: 'Audit a city.', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `audited ${city}` }),
        count: tool({ description: 'Count to n.', inputSchema: z.object({ n: z.number() }), needsApproval: true, execute: async ({ n }) => n }),
      },
      { toolApproval: ({ toolCall }) => (toolCall.toolName === 'audit' ? { type: 'user-approval', reason: 'audits are logged' } : 'approved') },
    )
    try {
      const value = (await createCodeTool({ host }).execute!({ code: `return [await tools.audit({ city: 'Oslo' }), await tools.count({ n: 3 })]` }, { toolCallId: 't6', messages: [], context: undefined })) as RunCodeValue
      expect(value).toMatchObject({ status: 'ok', value: ['audited Oslo', 3] })
      // The function wins over count's own needsApproval (as in ai 7): only audit asked.
      expect(asked).toEqual(['audit: audits are logged'])
    } finally {
      stop()
      await extra.dispose()
    }
  })

  it('S1.4 dispose() unregisters the set, and a set with a taken name registers nothing of it', async () => {
    const extra = await registerAiSdkTools(host, { temporary: tool({ description: 'Here for a moment.', inputSchema: z.object({}), execute: async () => 1 }) })
    expect(host.ctx.tools.get('temporary')).toBeDefined()
    await extra.dispose()
    expect(host.ctx.tools.get('temporary')).toBeUndefined()
    const clash = { fresh: tool({ description: 'New.', inputSchema: z.object({}), execute: async () => 1 }), read_file: tool({ description: 'Taken.', inputSchema: z.object({}), execute: async () => 1 }) }
    await expect(registerAiSdkTools(host, clash)).rejects.toThrow('A tool named "read_file" is already registered')
    expect(host.ctx.tools.get('fresh')).toBeUndefined()
  })
})
