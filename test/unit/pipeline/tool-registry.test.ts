import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ToolDefinitionError } from '../../../src/errors/ptc-error.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

const output = { schema: z.string(), render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] }
const classified = (name: string, isConcurrencySafe?: (args: { n: number }) => boolean) =>
  defineTool({ name, description: 'd', parameters: z.object({ n: z.number() }), output, execute: () => 'x', ...(isConcurrencySafe && { isConcurrencySafe }) })

describe('registration (S1.4)', () => {
  it('S1.4 disposing the plugin that registered a tool unregisters it', async () => {
    const root = await createRoot()
    const fiber = await usePlugin(root, (ctx) => ctx.tools.register(echoTool()))
    expect(root.tools.get('echo')).toBeDefined()
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'hi' } })).isError).toBe(false)
    await fiber.dispose()
    expect(root.tools.get('echo')).toBeUndefined()
    const after = await root.tools.execute({ name: 'echo', arguments: { text: 'hi' } })
    expect(after.error?.kind).toBe('unknown-tool')
  })

  it('S1.4 a duplicate name is a clear error and the first registration stays', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool()), 'first')
    let thrown: unknown
    await usePlugin(root, (ctx) => {
      try {
        ctx.tools.register(echoTool({ description: 'impostor' }))
      } catch (error) {
        thrown = error
      }
    }, 'second')
    expect(thrown).toBeInstanceOf(ToolDefinitionError)
    // It names the plugin holding the name, and how a built-in is left out.
    expect((thrown as Error).message).toBe(`A tool named "echo" is already registered (by the plugin "first"); tool names must be unique. Unregister the other plugin or rename one of them (a built-in tool is left out with createHost's builtins option, --builtins for ptc).`)
    expect(root.tools.get('echo')?.description).toBe('Echo the text back.')
  })

  it('S1.4 the disposer returned by register() unregisters only that tool', async () => {
    const root = await createRoot()
    let dispose!: () => Promise<void>
    await usePlugin(root, (ctx) => {
      dispose = ctx.tools.register(echoTool())
      ctx.tools.register(classified('other'))
    })
    await dispose()
    expect(root.tools.list().map((tool) => tool.name)).toEqual(['other'])
  })

  it('S1.4 register() refuses anything that is not a defineTool result', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      expect(() => ctx.tools.register({ name: 'fake', execute: () => 1 } as never)).toThrow(/defineTool/)
      expect(() => ctx.tools.register(null as never)).toThrow(ToolDefinitionError)
    })
  })

  it('S1.4 a guard registered by a disposed plugin is gone', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool()), 'tools')
    const fiber = await usePlugin(root, (ctx) => ctx.tools.guard(() => 'no echo today'), 'guard')
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).error?.message).toBe('no echo today')
    await fiber.dispose()
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).isError).toBe(false)
  })

  it('S1.4 guard() refuses a non-function', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => expect(() => ctx.tools.guard('deny' as never)).toThrow(TypeError))
  })
})

describe('schemas() (S2.1)', () => {
  it('S2.1 only name, description, parameters and deferLoading reach the model; an unknown field never leaks', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(
        defineTool({
          name: 'leaky',
          description: 'Has extras.',
          parameters: { path: { type: 'string', required: true } },
          output,
          execute: () => 'x',
          timeoutMs: 5,
          isConcurrencySafe: () => true,
          finalizeContent: ({ result }: { result: { content: readonly never[] } }) => [...result.content],
          secret: 'sk-do-not-leak',
        } as never),
      )
    })
    const [schema] = root.tools.schemas()
    expect(Object.keys(schema!).sort()).toEqual(['description', 'name', 'parameters'])
    expect(JSON.stringify(root.tools.schemas())).not.toContain('sk-do-not-leak')
    expect(schema!.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
  })

  it('S2.1 deferLoading appears only when it is exactly true', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(defineTool({ name: 'a_lazy', description: 'd', parameters: {}, output, execute: () => 'x', deferLoading: true }))
      ctx.tools.register(defineTool({ name: 'b_eager', description: 'd', parameters: {}, output, execute: () => 'x', deferLoading: false }))
      ctx.tools.register(defineTool({ name: 'c_truthy', description: 'd', parameters: {}, output, execute: () => 'x', deferLoading: 1 as never }))
    })
    const schemas = root.tools.schemas()
    expect(schemas.map((schema) => [schema.name, 'deferLoading' in schema ? schema.deferLoading : 'absent'])).toEqual([
      ['a_lazy', true],
      ['b_eager', 'absent'],
      ['c_truthy', 'absent'],
    ])
  })

  it('S2.1 mutating a returned schema does not change what the next caller gets', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool()))
    const first = root.tools.schemas()[0]!
    first.description = 'tampered'
    ;(first.parameters as Record<string, unknown>).injected = true
    const second = root.tools.schemas()[0]!
    expect(second.description).toBe('Echo the text back.')
    expect(second.parameters).not.toHaveProperty('injected')
  })
})

describe('executionMode() is fail-closed (S2.2, S7.1)', () => {
  const modeOf = async (isConcurrencySafe: ((args: { n: number }) => boolean) | undefined, args: unknown = { n: 1 }, name = 'c') => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(classified('c', isConcurrencySafe)))
    return root.tools.executionMode({ name, arguments: args }).kind
  }

  it('S2.2 a strict true on valid args means parallel', async () => {
    expect(await modeOf(() => true)).toBe('parallel')
  })

  it('S2.2 an omitted classifier means exclusive', async () => {
    expect(await modeOf(undefined)).toBe('exclusive')
  })

  it('S2.2 a throwing classifier means exclusive', async () => {
    expect(await modeOf(() => { throw new Error('cannot tell') })).toBe('exclusive')
  })

  it('S2.2 truthy-but-not-true answers mean exclusive', async () => {
    for (const answer of [1, 'true', {}, [], Promise.resolve(true), new Boolean(true)]) {
      expect(await modeOf(() => answer as never)).toBe('exclusive')
    }
  })

  it('S2.2 invalid or non-JSON args mean exclusive, and the classifier is not asked', async () => {
    let asked = 0
    const safe = () => (asked++, true)
    expect(await modeOf(safe, { n: 'one' })).toBe('exclusive')
    expect(await modeOf(safe, { n: 1n })).toBe('exclusive')
    expect(await modeOf(safe, { get n() { throw new Error('hostile getter') } })).toBe('exclusive')
    expect(asked).toBe(0)
  })

  it('S2.2 an unknown tool means exclusive', async () => {
    expect(await modeOf(() => true, { n: 1 }, 'nope')).toBe('exclusive')
  })

  it('S2.2 the classifier sees validated args and can classify per call', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(classified('c', (args) => args.n < 10)))
    expect(root.tools.executionMode({ name: 'c', arguments: { n: 1 } }).kind).toBe('parallel')
    expect(root.tools.executionMode({ name: 'c', arguments: { n: 11 } }).kind).toBe('exclusive')
  })

  it('S2.2 a hostile call object (throwing name getter) means exclusive, not a crash', async () => {
    const root = await createRoot()
    const call = { get name(): string { throw new Error('boom') }, arguments: {} }
    expect(root.tools.executionMode(call).kind).toBe('exclusive')
    expect(root.tools.executionMode(null as never).kind).toBe('exclusive')
  })
})

describe('classifyOnce() reads a call from code once (S6.1, S2.2)', () => {
  const counting = (name: string, seen: unknown[], isConcurrencySafe: (args: { n: number }) => boolean = () => true) => {
    const parameters = z.object({ n: z.number() }).transform((value) => (seen.push(value), value))
    return defineTool({ name, description: 'd', parameters, output, execute: (args) => `n=${args.n}`, isConcurrencySafe })
  }

  it('S6.1 execute of the classified call object runs with the arguments classified, validated once', async () => {
    const root = await createRoot()
    const parses: unknown[] = []
    let frozen: boolean | undefined
    await usePlugin(root, (ctx) => ctx.tools.register(counting('c', parses, (args) => ((frozen = Object.isFrozen(args)), true))))
    const call = { name: 'c', arguments: { n: 1 } }
    expect(root.tools.classifyOnce(call).kind).toBe('parallel')
    expect(frozen).toBe(true)
    const result = await root.tools.execute(call)
    expect(result.value).toBe('n=1')
    expect(result.arguments).toEqual({ n: 1 })
    expect(parses).toHaveLength(1)
    // Once per classification: the same object executed again is read and validated again.
    await root.tools.execute(call)
    expect(parses).toHaveLength(2)
  })

  it('S2.2 executionMode() keeps nothing: execute validates again', async () => {
    const root = await createRoot()
    const parses: unknown[] = []
    await usePlugin(root, (ctx) => ctx.tools.register(counting('c', parses)))
    const call = { name: 'c', arguments: { n: 1 } }
    expect(root.tools.executionMode(call).kind).toBe('parallel')
    await root.tools.execute(call)
    expect(parses).toHaveLength(2)
  })

  it('S6.1 a tool replaced between classification and execution validates the arguments itself', async () => {
    const root = await createRoot()
    const first: unknown[] = []
    const second: unknown[] = []
    const fiber = await usePlugin(root, (ctx) => ctx.tools.register(counting('c', first)), 'first')
    const call = { name: 'c', arguments: { n: 2 } }
    root.tools.classifyOnce(call)
    await fiber.dispose()
    await usePlugin(root, (ctx) => ctx.tools.register(counting('c', second)), 'second')
    expect((await root.tools.execute(call)).value).toBe('n=2')
    expect([first.length, second.length]).toEqual([1, 1])
  })

  it('S2.2 arguments that fail validation are exclusive and execute reports them as invalid', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(counting('c', [])))
    const call = { name: 'c', arguments: { n: 'one' } }
    expect(root.tools.classifyOnce(call).kind).toBe('exclusive')
    expect((await root.tools.execute(call)).error?.kind).toBe('invalid-arguments')
  })
})
