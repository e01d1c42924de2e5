/**
 * SPEC S6.1: an own `__proto__` key in a call's arguments is refused, naming its path, instead of
 * being dropped by validation (a zod object parse leaves it out); no prototype is polluted.
 */
import type { Context } from 'cordis'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { PROTO_KEY_REFUSED } from '../../../src/pipeline/materialize.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import * as runCodeTool from '../../../src/ptc/run-code-tool.ts'
import type { RunCodeValue } from '../../../src/ptc/run-code-value.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { createRoot, text, usePlugin } from '../../helpers/registry.ts'

let root: Context
const seen: unknown[] = []

beforeAll(async () => {
  root = await createRoot()
  await root.plugin(Ptc, { isolation: 'inline', poolSize: 1, checkers: 1 })
  await root.plugin(runCodeTool, { spill: false })
  await usePlugin(root, (ctx) => {
    ctx.tools.register(
      defineTool({
        name: 'keys',
        description: 'Returns the keys it got.',
        parameters: z.looseObject({ a: z.number().optional() }),
        output: { schema: z.array(z.string()), render: (_args, value) => [{ type: 'text', text: value.join(',') }] },
        execute: (args) => (seen.push(args), Object.keys(args)),
        isConcurrencySafe: () => true,
      }),
    )
  })
})

describe('S6.1 a __proto__ key in tool arguments', () => {
  it('S6.1 a direct call with an own __proto__ key is refused naming its path, and the tool does not run', async () => {
    const before = seen.length
    const result = await root.tools.execute({ name: 'keys', arguments: JSON.parse('{"__proto__":{"x":1},"a":1}') })
    expect(result.isError).toBe(true)
    expect(text(result.content)).toContain(`$.__proto__: ${PROTO_KEY_REFUSED}`)
    expect(seen.length).toBe(before)
    expect(({} as { x?: unknown }).x).toBeUndefined()
  })

  it('S6.1 a nested __proto__ key is refused with its full path', async () => {
    const result = await root.tools.execute({ name: 'keys', arguments: { a: 1, b: [JSON.parse('{"__proto__":{"x":1}}')] } })
    expect(result.isError).toBe(true)
    expect(text(result.content)).toContain(`$.b[0].__proto__: ${PROTO_KEY_REFUSED}`)
  })

  it('S6.1 S9 a script passing a __proto__ key gets a ToolCallError naming the key, not a call without it', async () => {
    const before = seen.length
    const code = 'try { return await tools.keys(JSON.parse(\'{"__proto__":{"polluted":"yes"},"a":1}\')) } catch (e) { return [e.name, e.message] }'
    const result = await root.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'tester' })
    const value = result.value as RunCodeValue
    expect(value.status).toBe('ok')
    const [name, message] = value.value as [string, string]
    expect(name).toBe('ToolCallError')
    expect(message).toContain(`__proto__: ${PROTO_KEY_REFUSED}`)
    expect(seen.length).toBe(before)
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('S6.1 the refusal says why without claiming every validator drops the key (a z.any() or MCP tool passes it through)', () => {
    expect(PROTO_KEY_REFUSED).toBe(
      "a key named __proto__ cannot be passed in tool arguments (an object schema's validation drops it, and JavaScript that copies it by assignment sets a prototype instead); rename the key",
    )
  })

  it('S6.1 an ordinary key named like a prototype member still passes as data', async () => {
    const result = await root.tools.execute({ name: 'keys', arguments: JSON.parse('{"constructor":1,"a":1}') })
    expect(result.isError).toBe(false)
    expect([...(result.value as string[])].sort()).toEqual(['a', 'constructor'])
  })
})
