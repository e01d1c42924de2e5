// The library API in one file: a tool plugin, a policy listener, a guard, and both ways to call
// tools (one call through the pipeline, and a run_code script). Run it with
//   node --no-node-snapshot examples/library.ts
import type { Context } from 'cordis'
import { z } from 'zod'
import { createHost, defineTool } from '../src/index.ts'

// A tool plugin: parameters (zod, or the compact form) type `args`; output.schema is enforced.
const weather = {
  name: 'weather-tools',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.tools.register(
      defineTool({
        name: 'forecast',
        description: 'Forecast for a city: temperature in °C for the next days.',
        parameters: { city: { type: 'string', required: true }, days: { type: 'integer' } },
        output: {
          schema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
          render: (_args, value) => [{ type: 'text', text: `${value.city}: ${value.celsius.join(', ')} °C` }],
        },
        isConcurrencySafe: () => true,
        async execute(args, exec) {
          exec.signal.throwIfAborted()
          return { city: args.city, celsius: Array.from({ length: args.days ?? 3 }, (_, day) => 20 + day) }
        },
      }),
    )
  },
}

const host = await createHost({ workspace: '.', journal: false })
await host.ctx.plugin(weather)

// A policy listener (tools/pre-execute waterfall): deny, cancel, ask, or pass on with next().
host.ctx.on('tools/pre-execute', (execution, next) =>
  execution.name === 'forecast' && (execution.arguments as { city: string }).city === 'Atlantis'
    ? { kind: 'deny', reason: 'Atlantis is not a real city.' }
    : next(),
)
// A guard: runs after every listener and can only deny (S4.1).
host.ctx.tools.guard((execution) => ((execution.arguments as { days?: number }).days ?? 0) > 14 ? 'At most 14 days.' : undefined)

const direct = await host.ctx.tools.execute({ name: 'forecast', arguments: { city: 'Lisbon', days: 2 } }, { agent: 'demo' })
console.log(direct.value, direct.content)

const run = await host.ctx.tools.execute(
  {
    name: 'run_code',
    arguments: {
      code: `
        const cities = ['Lisbon', 'Oslo', 'Atlantis']
        const results = await Promise.allSettled(cities.map((city) => tools.forecast({ city })))
        return results.map((r, i) => r.status === 'fulfilled' ? r.value.celsius[0] : cities[i] + ': ' + (r.reason as ToolCallError).message)`,
    },
  },
  { agent: 'demo' },
)
console.log(run.value)
await host.dispose()
