// ptc-runner in the Vercel AI SDK (`ai` 7): your AI SDK tools become callable from a script, and
// the model gets one `run_code` tool. No API key needed: the model is the SDK's own mock, which
// answers with one run_code call and then with the text of the result. Run it with
//   node --no-node-snapshot examples/ai-sdk.ts
// (in a project of your own, import from 'ptc-runner' and 'ptc-runner/ai' instead of ../src).
import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import { createCodeTool, registerAiSdkTools } from '../src/adapters/ai/index.ts'
import { createHost } from '../src/index.ts'

const host = await createHost({ workspace: '.', journal: false })

// Your AI SDK tools, as you already have them.
const weatherTools = {
  forecast: tool({
    description: 'Forecast for a city: °C for the next days.',
    inputSchema: z.object({ city: z.string(), days: z.number().int().max(7).optional() }),
    outputSchema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
    execute: async ({ city, days }) => ({ city, celsius: [18, 21, 19].slice(0, days ?? 3).map((t) => t + (city.length % 4)) }),
  }),
  book_trip: tool({
    description: 'Book a trip to a city.',
    inputSchema: z.object({ city: z.string() }),
    needsApproval: true, // an `ask` in ptc's pipeline: no approver here, so it is denied
    execute: async ({ city }) => `booked ${city}`,
  }),
}
await registerAiSdkTools(host, weatherTools, { concurrent: ['forecast'] })

// What a model would write: three forecasts in parallel, then a booking that needs approval.
const script = `
const cities = ['Lisbon', 'Oslo', 'Rome']
const forecasts = await Promise.all(cities.map((city) => tools.forecast({ city, days: 2 })))
const warmest = forecasts.sort((a, b) => Math.max(...b.celsius) - Math.max(...a.celsius))[0]
try {
  await tools.book_trip({ city: warmest.city })
} catch (error) {
  if (error instanceof ToolCallError) return { warmest: warmest.city, booking: error.message }
}
return { warmest: warmest.city, booking: 'booked' }`

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } }
let step = 0
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    if (step++ === 0) {
      return { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input: JSON.stringify({ code: script }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
    }
    const toolResult = prompt.at(-1)?.content.at(0) as { output?: { value?: unknown } } | undefined
    return { content: [{ type: 'text', text: `The model read:\n${String(toolResult?.output?.value)}` }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
  },
})

const result = await generateText({
  model,
  prompt: 'Which city is warmest? Book a trip there.',
  tools: { ...weatherTools, run_code: createCodeTool({ host }) },
  stopWhen: stepCountIs(3),
})
console.log('run_code value:', JSON.stringify(result.steps[0]?.toolResults[0]?.output))
console.log(result.text)
await host.dispose()
