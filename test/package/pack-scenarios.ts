/**
 * The programs `pack-install.test.ts` writes into its scratch project (issues 14, 15): a `--tools`
 * plugin, an embedding, the two framework adapters' scenarios driven by mock models, and the
 * README's library example as a newcomer pastes it.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const REPO = resolve(import.meta.dirname, '../..')

export const TOOL_MODULE = `import { defineTool, z } from 'ptc-runner'

export default [
  defineTool({
    name: 'shout',
    description: 'Upper-case a text.',
    parameters: z.object({ text: z.string().describe('The text to shout.') }),
    output: { schema: z.object({ loud: z.string() }), render: (_args, value) => [{ type: 'text', text: value.loud }] },
    async execute(args) {
      return { loud: args.text.toUpperCase() }
    },
  }),
]
`

export const EMBED = `import { createHost, type HostOptions } from 'ptc-runner'
import { startViewer } from 'ptc-runner/view'

if (typeof startViewer !== 'function') throw new Error('ptc-runner/view exports no startViewer')

const options: HostOptions = { workspace: '.', journal: false }
const host = await createHost(options)
const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'return 6 * 7' } }, { agent: 'embed' })
console.log(JSON.stringify(result.value))
await host.dispose()
`

export const AI_SCENARIO = `import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createHost, type RunCodeValue, z } from 'ptc-runner'
import { createCodeTool, registerAiSdkTools } from 'ptc-runner/ai'

const host = await createHost({ workspace: '.', journal: false })
const literal = await createCodeTool({ host }).execute!({ code: 'return 6 * 7' }, { toolCallId: 't1', messages: [], context: undefined })
await registerAiSdkTools(host, {
  double: tool({ description: 'Double a number.', inputSchema: z.object({ n: z.number() }), outputSchema: z.object({ doubled: z.number() }), execute: async ({ n }) => ({ doubled: n * 2 }) }),
  square: tool({ description: 'Square a number.', inputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }), execute: async ({ n }) => n * n }),
  wipe: tool({ description: 'Wipe everything.', inputSchema: z.object({}), needsApproval: true, execute: async () => 'wiped' }),
})
const code = 'const [d, s] = await Promise.all([tools.double({ n: 4 }), tools.square({ n: 3 })])\\n' +
  'let denied = ""\\ntry { await tools.wipe({}) } catch (error) { if (error instanceof ToolCallError) denied = error.toolName }\\n' +
  'return { doubled: d.doubled, squared: s, denied }'
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
let step = 0
const model = new MockLanguageModelV4({
  doGenerate: async () => step++ === 0
    ? { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'run_code', input: JSON.stringify({ code }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
    : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
})
const codeTool = createCodeTool({ host })
// @ts-expect-error the shipped declarations type the input: code is a string
void (() => codeTool.execute!({ code: 1 }, { toolCallId: 'never', messages: [], context: undefined }))
const result = await generateText({ model, prompt: 'go', tools: { run_code: codeTool }, stopWhen: stepCountIs(3) })
const output: RunCodeValue = result.steps[0]!.toolResults[0]!.output as RunCodeValue
console.log(JSON.stringify({ literal, output, text: result.text }))
await host.dispose()
`

export const AGENTS_SCENARIO = `import { Agent, Runner, tool } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing'
import { createHost, z } from 'ptc-runner'
import { createCodeTool, registerAgentsTools } from 'ptc-runner/openai-agents'

const host = await createHost({ workspace: '.', journal: false })
const double = tool({ name: 'double', description: 'Double a number.', parameters: z.object({ n: z.number() }), outputSchema: z.object({ doubled: z.number() }), execute: async ({ n }) => ({ doubled: n * 2 }) })
const wipe = tool({ name: 'wipe', description: 'Wipe everything.', parameters: z.object({}), needsApproval: true, execute: async () => 'wiped' })
await registerAgentsTools(host, [double, wipe])
const code = 'const d = await tools.double({ n: 21 })\\n' +
  'let denied = ""\\ntry { await tools.wipe({}) } catch (error) { if (error instanceof ToolCallError) denied = error.toolName }\\n' +
  'return { doubled: d.doubled, denied }'
const model = new ScriptedModel([[functionCall('run_code', { code }, { callId: 'c1' })], [assistantMessage('done')]])
const codeTool = createCodeTool({ host, needsApproval: true })
// @ts-expect-error the shipped declarations type the options: runOptions lists run_code options
void (() => createCodeTool({ host, runOptions: ['nope'] }))
const agent = new Agent({ name: 'scratch', model, tools: [codeTool] })
const runner = new Runner({ tracingDisabled: true })
const first = await runner.run(agent, 'go')
const interrupted = first.interruptions.length
for (const interruption of first.interruptions) first.state.approve(interruption)
const result = await runner.run(agent, first.state)
const item = result.newItems.find((entry) => entry.type === 'tool_call_output_item') as { customData?: { runCode?: unknown } } | undefined
console.log(JSON.stringify({ interrupted, runCode: item?.customData?.runCode, text: result.finalOutput }))
await host.dispose()
`

/** The README's library example (the first `ts` block of its "Library API" section), as a newcomer would paste it. */
export const README_EXAMPLE = (() => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## Library API\n'))
  return /```ts\n([\s\S]*?)\n```/.exec(section)![1]! + '\n'
})()
