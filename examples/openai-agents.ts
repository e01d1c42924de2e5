// ptc-runner in the OpenAI Agents SDK (`@openai/agents` 0.20): an agent's function tools become
// callable from a script, and the agent gets one `run_code` tool that needs approval. No API key
// needed: the model is the SDK's own ScriptedModel, which answers with one run_code call and then
// with the text of the result. Run it with
//   node --no-node-snapshot examples/openai-agents.ts
// (in a project of your own, import from 'ptc-runner' and 'ptc-runner/openai-agents' instead of ../src).
import { Agent, Runner, tool } from '@openai/agents'
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing'
import { z } from 'zod'
import { createCodeTool, registerAgentsTools } from '../src/adapters/openai-agents/index.ts'
import { createHost } from '../src/index.ts'

const host = await createHost({ workspace: '.', journal: false })

// Your agent's tools, as you already have them.
const forecast = tool({
  name: 'forecast',
  description: 'Forecast for a city: °C for the next days.',
  parameters: z.object({ city: z.string(), days: z.number().int().max(7) }),
  outputSchema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
  execute: async ({ city, days }) => ({ city, celsius: [18, 21, 19].slice(0, days).map((t) => t + (city.length % 4)) }),
})
await registerAgentsTools(host, [forecast], { concurrent: ['forecast'] })

// What a model would write: three forecasts in parallel, the warmest city in code.
const script = `
const cities = ['Lisbon', 'Oslo', 'Rome']
const forecasts = await Promise.all(cities.map((city) => tools.forecast({ city, days: 2 })))
return forecasts.map((f) => ({ city: f.city, max: Math.max(...f.celsius) })).sort((a, b) => b.max - a.max)[0]`

const model = new ScriptedModel([
  [functionCall('run_code', { code: script }, { callId: 'call-1' })],
  modelResponder(({ request }) => {
    const item = Array.isArray(request.input) ? request.input.find((entry) => entry.type === 'function_call_result') : undefined
    const output = (item as { output?: string | { text?: string } } | undefined)?.output
    return [assistantMessage(`The model read:\n${typeof output === 'string' ? output : output?.text}`)]
  }),
])
const agent = new Agent({ name: 'planner', model, tools: [forecast, createCodeTool({ host, needsApproval: true })] })
const runner = new Runner({ tracingDisabled: true })

// The run stops before the script runs: the code tool needs approval (an interruption).
let result = await runner.run(agent, 'Which city is warmest?')
for (const interruption of result.interruptions) {
  console.log(`approving ${interruption.rawItem.type === 'function_call' ? interruption.rawItem.name : interruption.rawItem.type}`)
  result.state.approve(interruption)
}
result = await runner.run(agent, result.state)
const item = result.newItems.find((entry) => entry.type === 'tool_call_output_item') as { customData?: { runCode?: unknown } } | undefined
console.log('run_code value:', JSON.stringify(item?.customData?.runCode))
console.log(result.finalOutput)
await host.dispose()
