import type { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { CANCELLED_BEFORE_START_MESSAGE } from '../../../src/pipeline/results.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ContentBlock, JsonValue, ToolExecution, ToolResult } from '../../../src/tools/types.ts'
import { createRoot, echoTool, text, tick, usePlugin } from '../../helpers/registry.ts'

afterEach(() => vi.restoreAllMocks())

/** A tool whose body is the given function; value is any JSON, rendered as JSON text. */
const bodyTool = (execute: (args: { x?: unknown }, exec: ToolExecution) => unknown, extra: Record<string, unknown> = {}) =>
  defineTool({
    name: 'body',
    description: 'Runs the test body.',
    parameters: z.object({ x: z.unknown().optional() }),
    output: { schema: z.unknown(), render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) ?? 'undefined' }] },
    execute: execute as never,
    ...(extra as {}),
  })

async function setup(apply: (ctx: Context) => void) {
  const root = await createRoot()
  await usePlugin(root, apply)
  return root
}

describe('pipeline order (S3)', () => {
  it('S3 hooks fire in order: pre-execute → guards → execute wrappers → body → post-execute → finalizeContent → tools/result', async () => {
    const order: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(
        defineTool({
          name: 'traced',
          description: 'd',
          parameters: {},
          output: {
            schema: z.string(),
            render: (_args, value) => (order.push('render'), [{ type: 'text', text: value }]),
            presentationMeta: () => (order.push('presentationMeta'), null),
          },
          execute: () => (order.push('body'), 'v'),
          projectContent: ({ content }) => (order.push('projectContent'), [...content]),
          finalizeContent: ({ result }) => (order.push('finalizeContent'), [...result.content]),
        }),
      )
      ctx.on('tool/call', () => void order.push('tool/call'))
      ctx.on('tools/pre-execute', (_execution, next) => (order.push('pre-execute 1'), next()))
      ctx.on('tools/pre-execute', (_execution, next) => (order.push('pre-execute 2'), next()))
      ctx.tools.guard(() => void order.push('guard 1'))
      ctx.tools.guard(() => void order.push('guard 2'))
      ctx.on('tools/execute', async (_execution, next) => {
        order.push('execute wrapper outer')
        const value = await next()
        order.push('execute wrapper outer done')
        return value
      })
      ctx.on('tools/execute', (_execution, next) => (order.push('execute wrapper inner'), next()))
      ctx.on('tools/post-execute', (_execution, _result, next) => (order.push('post-execute'), next()))
      ctx.on('tools/result', () => void order.push('tools/result'))
    })
    const result = await root.tools.execute({ name: 'traced', arguments: {} })
    expect(result.isError).toBe(false)
    expect(order).toEqual([
      'tool/call',
      'pre-execute 1',
      'pre-execute 2',
      'guard 1',
      'guard 2',
      'execute wrapper outer',
      'execute wrapper inner',
      'body',
      'execute wrapper outer done',
      'render',
      'projectContent',
      'post-execute',
      'presentationMeta',
      'finalizeContent',
      'tools/result',
    ])
  })

  it('S3.1 a tool without any policy plugin runs: policy is not built into tools', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'plain' } })
    expect(result).toMatchObject({ isError: false, value: { text: 'plain' }, content: [{ type: 'text', text: 'plain' }] })
  })

  it('S3.1 the same policy plugin governs every tool without the tools knowing it', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool())
      ctx.tools.register(bodyTool(() => 1))
      ctx.tools.guard((execution) => (execution.agent === 'intern' ? `${execution.name} is not allowed for interns` : undefined))
    })
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } }, { agent: 'intern' })).error?.message).toBe('echo is not allowed for interns')
    expect((await root.tools.execute({ name: 'body', arguments: {} }, { agent: 'intern' })).error?.message).toBe('body is not allowed for interns')
    expect((await root.tools.execute({ name: 'body', arguments: {} }, { agent: 'lead' })).isError).toBe(false)
  })

  it('S3 a tools/execute wrapper can retry by calling next() again', async () => {
    let attempts = 0
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(() => {
        attempts++
        if (attempts < 3) throw new Error(`flaky ${attempts}`)
        return 'third time lucky'
      }))
      ctx.on('tools/execute', async (_execution, next) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await next()
          } catch (error) {
            if (attempt >= 3) throw error
          }
        }
      })
    })
    const result = await root.tools.execute({ name: 'body', arguments: {} })
    expect(result).toMatchObject({ isError: false, value: 'third time lucky' })
    expect(attempts).toBe(3)
  })

  it('S3 a tools/execute wrapper can measure around dispatch and short-circuit with its own value', async () => {
    let ran = false
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(() => ((ran = true), 'fresh')))
      ctx.on('tools/execute', async () => 'cached')
    })
    const result = await root.tools.execute({ name: 'body', arguments: {} })
    expect(result.value).toBe('cached')
    expect(ran).toBe(false)
  })

  it('S3 a short-circuit value from a wrapper is still validated against output.schema', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/execute', async () => ({ wrong: true }) as never)
    })
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-output' } })
  })
})

describe('optional definition fields in the pipeline (S2)', () => {
  it('S2 finalizeContent runs exactly once per result, including every failure path', async () => {
    const calls: { kind: string | undefined; isError: boolean; args: unknown }[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(
        defineTool({
          name: 'fin',
          description: 'd',
          parameters: z.object({ mode: z.string() }),
          output: { schema: z.string(), render: (_args, value) => [{ type: 'text', text: value }] },
          execute: async (args, exec) => {
            if (args.mode === 'throw') throw new Error('body failed')
            if (args.mode === 'invalid') return 42 as never
            if (args.mode === 'hang') return new Promise<string>((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason)))
            return args.mode
          },
          finalizeContent: ({ args, result }) => {
            calls.push({ kind: (args as { mode?: string } | undefined)?.mode, isError: result.isError, args })
            return [...result.content, { type: 'text', text: ' [final]' }]
          },
        }),
      )
      ctx.on('tools/pre-execute', (execution, next) => {
        const mode = (execution.arguments as { mode: string }).mode
        if (mode === 'deny') return { kind: 'deny', reason: 'no' }
        if (mode === 'cancel') return { kind: 'cancel' }
        if (mode === 'ask') return { kind: 'ask' }
        if (mode === 'pre-throw') throw new Error('policy crashed')
        return next()
      })
      ctx.tools.guard((execution) => ((execution.arguments as { mode: string }).mode === 'guard' ? 'guarded' : undefined))
      ctx.on('tools/post-execute', (execution, _result, next) => {
        const mode = (execution.arguments as { mode: string }).mode
        if (mode === 'block') return { kind: 'block', feedback: 'blocked' }
        if (mode === 'post-throw') throw new Error('post crashed')
        if (mode === 'bad-value') return { kind: 'accept', value: 7 }
        return next()
      })
    })
    const modes = ['ok', 'throw', 'invalid', 'deny', 'cancel', 'ask', 'pre-throw', 'guard', 'block', 'post-throw', 'bad-value']
    for (const mode of modes) {
      calls.length = 0
      const result = await root.tools.execute({ name: 'fin', arguments: { mode } })
      expect(calls, mode).toHaveLength(1)
      expect(calls[0]!.isError, mode).toBe(mode !== 'ok')
      expect(text(result.content).endsWith(' [final]'), mode).toBe(true)
    }
    // invalid arguments and non-JSON arguments: finalizeContent runs once with args undefined
    for (const args of [{ mode: 5 }, { mode: 10n }, 'not an object']) {
      calls.length = 0
      const result = await root.tools.execute({ name: 'fin', arguments: args })
      expect(result.isError).toBe(true)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.args).toBeUndefined()
    }
    // a caller abort in the middle of the body
    calls.length = 0
    const controller = new AbortController()
    const pending = root.tools.execute({ name: 'fin', arguments: { mode: 'hang' } }, { signal: controller.signal })
    await tick(5)
    controller.abort()
    expect((await pending).error?.kind).toBe('cancelled')
    expect(calls).toHaveLength(1)
  })

  it('S2 a throwing finalizeContent keeps the content it was given, and the result still arrives', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const root = await setup((ctx) => ctx.tools.register(echoTool({ finalizeContent: () => { throw new Error('oops') } })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'kept' } })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'kept' }] })
  })

  it('S2 a finalizeContent returning malformed blocks keeps the content it was given', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const root = await setup((ctx) => ctx.tools.register(echoTool({ finalizeContent: () => [{ type: 'html', html: '<b>' }] })))
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'kept' } })).content).toEqual([{ type: 'text', text: 'kept' }])
  })

  it('S2 projectContent loads prepared content before post-execute policy sees it', async () => {
    let seen: readonly ContentBlock[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ projectContent: async ({ value }: { value: { text: string } }) => [{ type: 'text', text: `prepared:${value.text}` }] }))
      ctx.on('tools/post-execute', (_execution, result, next) => ((seen = result.content), next()))
    })
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(seen).toEqual([{ type: 'text', text: 'prepared:a' }])
    expect(result.content).toEqual([{ type: 'text', text: 'prepared:a' }])
    expect(result.value).toEqual({ text: 'a' })
  })

  it('S2 output.presentationMeta is stored on the result as replayable JSON', async () => {
    const root = await setup((ctx) =>
      ctx.tools.register(echoTool({ output: { schema: z.object({ text: z.string() }), render: () => [{ type: 'text', text: 'r' }], presentationMeta: (args: { text: string }, value: { text: string }) => ({ shown: args.text, length: value.text.length }) } })),
    )
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'abc' } })
    expect(result.presentationMeta).toEqual({ shown: 'abc', length: 3 })
    expect(Object.isFrozen(result.presentationMeta)).toBe(true)
  })

  it('S2 a presentationMeta that throws or is not JSON is omitted with one stderr line saying why; the result is unaffected', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const presentationMeta of [() => { throw new Error('x') }, () => ({ when: new Date() })]) {
      const root = await setup((ctx) => ctx.tools.register(echoTool({ output: { schema: z.object({ text: z.string() }), render: () => [{ type: 'text', text: 'r' }], presentationMeta } })))
      const result = await root.tools.execute({ name: 'echo', arguments: { text: 'abc' } })
      expect(result.isError).toBe(false)
      expect(result).not.toHaveProperty('presentationMeta')
    }
    // One string argument each, no error object (whose stack and fields would follow it).
    expect(printed.mock.calls.map((call) => call.length)).toEqual([1, 1])
    expect(printed.mock.calls[1]![0]).toMatch(/^\[ptc-runner\] presentationMeta of "echo" failed; it is omitted: .*Date is not plain JSON/)
  })

  it('S2 timeoutMs is visible to wrappers on the execution record', async () => {
    let seen: number | undefined
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ timeoutMs: 1234 }))
      ctx.on('tools/execute', (execution, next) => ((seen = execution.timeoutMs), next()))
    })
    await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(seen).toBe(1234)
  })
})

describe('execution identity and immutability (S6.2, S6.3)', () => {
  it('S6.2 each execution gets its own unregistered Symbol token, the same object through the whole run', async () => {
    const tokens: symbol[][] = []
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool((_args, exec) => (tokens.at(-1)!.push(exec.token), null)))
      ctx.on('tools/pre-execute', (execution, next) => (tokens.push([execution.token]), next()))
      ctx.on('tools/execute', (execution, next) => (tokens.at(-1)!.push(execution.token), next()))
    })
    await root.tools.execute({ name: 'body', arguments: {} })
    await root.tools.execute({ name: 'body', arguments: {} })
    const [first, second] = tokens
    expect(typeof first![0]).toBe('symbol')
    expect(new Set(first).size).toBe(1)
    expect(first![0]).not.toBe(second![0])
    expect(Symbol.keyFor(first![0]!)).toBeUndefined()
    // same description is not the same identity
    expect(Symbol(first![0]!.description) === first![0]).toBe(false)
  })

  it('S6.3 callId, name, arguments, agent, token and callerSignal cannot be reassigned, deleted or redefined', async () => {
    const failures: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool((_args, exec) => ({ callId: exec.callId, name: exec.name, agent: exec.agent ?? null })))
      ctx.on('tools/pre-execute', (execution, next) => {
        const record = execution as unknown as Record<string, unknown>
        for (const field of ['callId', 'name', 'arguments', 'agent', 'token', 'callerSignal', 'parentToken', 'timeoutMs']) {
          try {
            record[field] = field === 'callerSignal' ? new AbortController().signal : 'forged'
            failures.push(`${field}: assignment had no error`)
          } catch {}
          try {
            delete record[field]
            failures.push(`${field}: delete had no error`)
          } catch {}
          try {
            Object.defineProperty(record, field, { value: 'forged' })
            failures.push(`${field}: defineProperty had no error`)
          } catch {}
        }
        try {
          record.extra = 1
          failures.push('extra: a new field could be added')
        } catch {}
        return next()
      })
    })
    const result = await root.tools.execute({ callId: 'c-1', name: 'body', arguments: {} }, { agent: 'me' })
    expect(failures).toEqual([])
    expect(result.value).toEqual({ callId: 'c-1', name: 'body', agent: 'me' })
  })

  it('S5.2 a listener cannot rewrite args: execution.arguments is deep-frozen and the body receives exactly what policy saw', async () => {
    let policySaw: unknown
    let bodyGot: unknown
    let execArgs: unknown
    const errors: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(
        defineTool({
          name: 'write',
          description: 'd',
          parameters: z.object({ path: z.string(), nested: z.object({ list: z.array(z.string()) }) }),
          output: { schema: z.string(), render: (_args, value) => [{ type: 'text', text: value }] },
          execute: (args, exec) => ((bodyGot = args), (execArgs = exec.arguments), args.path),
        }),
      )
      ctx.on('tools/pre-execute', (execution, next) => {
        policySaw = execution.arguments
        const args = execution.arguments as { path: string; nested: { list: string[] } }
        for (const attempt of [
          () => void (args.path = '/etc/passwd'),
          () => void args.nested.list.push('/etc'),
          () => void (args.nested.list[0] = '/etc'),
          () => void ((args as Record<string, unknown>).extra = 1),
          () => void delete (args as Partial<typeof args>).path,
        ]) {
          try {
            attempt()
            errors.push(String(attempt))
          } catch {}
        }
        return next()
      })
      ctx.on('tools/execute', (execution, next) => {
        try {
          ;(execution.arguments as { path: string }).path = '/root'
          errors.push('wrapper rewrote path')
        } catch {}
        return next()
      })
    })
    const result = await root.tools.execute({ name: 'write', arguments: { path: '/tmp/a', nested: { list: ['x'] } } })
    expect(errors).toEqual([])
    expect(bodyGot).toBe(policySaw)
    expect(execArgs).toBe(policySaw)
    expect(bodyGot).toEqual({ path: '/tmp/a', nested: { list: ['x'] } })
    expect(result.value).toBe('/tmp/a')
    expect(result.arguments).toEqual({ path: '/tmp/a', nested: { list: ['x'] } })
  })

  it('S6.1 a getter that answers differently on each read is read once: policy, guard, body and the record agree', async () => {
    let reads = 0
    const seen: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ execute: (args: { text: string }) => (seen.push(`body:${args.text}`), { text: args.text }) }))
      ctx.on('tools/pre-execute', (execution, next) => (seen.push(`policy:${(execution.arguments as { text: string }).text}`), next()))
      ctx.tools.guard((execution) => {
        const value = (execution.arguments as { text: string }).text
        seen.push(`guard:${value}`)
        return value === 'safe' ? undefined : 'unsafe'
      })
    })
    const args = {
      get text() {
        return ++reads === 1 ? 'safe' : 'rm -rf /'
      },
    }
    const calls: unknown[] = []
    await usePlugin(root, (ctx) => ctx.on('tool/call', (call) => void calls.push(call.arguments)), 'recorder')
    const result = await root.tools.execute({ name: 'echo', arguments: args })
    expect(reads).toBe(1)
    expect(seen).toEqual(['policy:safe', 'guard:safe', 'body:safe'])
    expect(result.arguments).toEqual({ text: 'safe' })
    expect(calls).toEqual([{ text: 'safe' }])
  })

  it('S6.1 a Proxy argument is snapshotted before policy; flipping it afterwards changes nothing', async () => {
    let flip = false
    let bodyGot: unknown
    const target = { text: 'before' }
    const proxy = new Proxy(target, { get: (object, key) => (flip && key === 'text' ? 'after' : Reflect.get(object, key)) })
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ execute: (args: { text: string }) => ((bodyGot = args.text), { text: args.text }) }))
      ctx.on('tools/pre-execute', async (_execution, next) => ((flip = true), next()))
    })
    await root.tools.execute({ name: 'echo', arguments: proxy })
    expect(bodyGot).toBe('before')
  })

  it('S5.2/S6.1 a caller mutating its own arguments object after execute() starts changes nothing', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let bodyGot: unknown
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ execute: async (args: { text: string }) => ((bodyGot = args.text), { text: args.text }) }))
      ctx.on('tools/pre-execute', async (_execution, next) => (await gate, next()))
    })
    const input = { text: 'original' }
    const pending = root.tools.execute({ name: 'echo', arguments: input })
    input.text = 'swapped'
    release()
    const result = await pending
    expect(bodyGot).toBe('original')
    expect(result.arguments).toEqual({ text: 'original' })
  })

  it('S6.3 a wrapper that replaces exec.signal with a never-aborting one cannot cut off the caller abort', async () => {
    let bodySawAbort = false
    let bodySignal: AbortSignal | undefined
    const root = await setup((ctx) => {
      ctx.tools.register(
        bodyTool(
          (_args, exec) =>
            new Promise((resolve) => {
              bodySignal = exec.signal
              exec.signal.addEventListener('abort', () => {
                bodySawAbort = true
                resolve('stopped')
              })
            }),
        ),
      )
      ctx.on('tools/execute', (execution, next) => {
        execution.signal = new AbortController().signal
        return next()
      })
    })
    const controller = new AbortController()
    const pending = root.tools.execute({ name: 'body', arguments: {} }, { signal: controller.signal })
    await tick(5)
    expect(bodySignal?.aborted).toBe(false)
    controller.abort()
    const result = await pending
    expect(bodySawAbort).toBe(true)
    expect(bodySignal?.aborted).toBe(true)
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled' } })
  })

  it('S6.3 a replaced signal reaches the body, still fused with the caller signal', async () => {
    const own = new AbortController()
    let bodySignal: AbortSignal | undefined
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool((_args, exec) => ((bodySignal = exec.signal), null)))
      ctx.on('tools/execute', (execution, next) => ((execution.signal = own.signal), next()))
    })
    await root.tools.execute({ name: 'body', arguments: {} }, { signal: new AbortController().signal })
    expect(bodySignal).toBeDefined()
    expect(bodySignal!.aborted).toBe(false)
    own.abort()
    expect(bodySignal!.aborted).toBe(true) // the wrapper's own abort still reaches the body
  })

  it('S6.3 setting exec.signal to undefined (or a non-signal) throws: in a wrapper it is a failure, in policy a denial', async () => {
    for (const replacement of [undefined, null, { aborted: false }]) {
      let ran = false
      const root = await setup((ctx) => {
        ctx.tools.register(bodyTool(() => ((ran = true), null)))
        ctx.on('tools/execute', (execution, next) => {
          ;(execution as { signal: unknown }).signal = replacement
          return next()
        })
      })
      const result = await root.tools.execute({ name: 'body', arguments: {} })
      expect(result).toMatchObject({ isError: true, error: { kind: 'failed' } })
      expect(text(result.content)).toMatch(/exec\.signal can be replaced by another AbortSignal, never removed/)
      expect(ran).toBe(false)
    }
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(() => null))
      ctx.on('tools/pre-execute', (execution, next) => {
        ;(execution as { signal: unknown }).signal = undefined
        return next()
      })
    })
    expect((await root.tools.execute({ name: 'body', arguments: {} })).error?.kind).toBe('denied')
  })

  it('S6.3 the caller signal is exposed unchanged as callerSignal, even after a wrapper replaces signal', async () => {
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool((_args, exec) => ((seen = exec.callerSignal), null)))
      ctx.on('tools/execute', (execution, next) => ((execution.signal = new AbortController().signal), next()))
    })
    await root.tools.execute({ name: 'body', arguments: {} }, { signal: controller.signal })
    expect(seen).toBe(controller.signal)
  })

  it('S6.3 a call cancelled while a tools/execute wrapper still holds it says nothing was done; one cancelled inside its body says what it did stands', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let bodyRan = false
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(async () => ((bodyRan = true), await new Promise(() => {}))))
      ctx.on('tools/execute', async (_execution, next) => (await held, next()))
    })
    const stop = new AbortController()
    const before = root.tools.execute({ name: 'body', arguments: {} }, { signal: stop.signal })
    await tick(10)
    stop.abort()
    expect(await before).toMatchObject({ isError: true, error: { kind: 'cancelled', message: CANCELLED_BEFORE_START_MESSAGE } })
    expect(bodyRan).toBe(false)
    release()
    const inside = new AbortController()
    const during = root.tools.execute({ name: 'body', arguments: {} }, { signal: inside.signal })
    while (!bodyRan) await tick(5)
    inside.abort()
    expect((await during).error?.message).toMatch(/^The tool call was cancelled before it finished; what it had already done stands/)
  })

  it('S6.3 a caller signal that is already aborted cancels before policy or body run', async () => {
    let policyRan = false
    let bodyRan = false
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(() => ((bodyRan = true), null)))
      ctx.on('tools/pre-execute', (_execution, next) => ((policyRan = true), next()))
    })
    const result = await root.tools.execute({ name: 'body', arguments: {} }, { signal: AbortSignal.abort() })
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled', message: CANCELLED_BEFORE_START_MESSAGE } })
    expect(policyRan).toBe(false)
    expect(bodyRan).toBe(false)
  })

  it('S6.3 a body that ignores its signal still yields a cancelled result when the caller stops', async () => {
    const root = await setup((ctx) => ctx.tools.register(bodyTool(() => new Promise(() => {}))))
    const controller = new AbortController()
    const pending = root.tools.execute({ name: 'body', arguments: {} }, { signal: controller.signal })
    await tick(2)
    controller.abort()
    expect((await pending).error?.kind).toBe('cancelled')
  })

  it('S6.3 callId is kept when given and generated uniquely otherwise', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    expect((await root.tools.execute({ callId: 'mine', name: 'echo', arguments: { text: 'a' } })).callId).toBe('mine')
    const a = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    const b = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(a.callId).toMatch(/^call_/)
    expect(a.callId).not.toBe(b.callId)
  })
})

describe('the frozen result (S6.4)', () => {
  it('S6.4 the result is deep-frozen and tools/result observers get the very object execute() returns', async () => {
    const observed: ToolResult[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool({ output: { schema: z.object({ text: z.string() }), render: (_args: unknown, value: { text: string }) => [{ type: 'text', text: value.text }], presentationMeta: () => ({ a: [1] }) } }))
      ctx.on('tools/result', (result) => void observed.push(result))
      ctx.on('tools/post-execute', () => ({ kind: 'accept', additionalContext: 'note' }))
    })
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(observed).toHaveLength(1)
    expect(observed[0]).toBe(result)
    const frozen = (value: unknown): boolean =>
      typeof value !== 'object' || value === null || (Object.isFrozen(value) && Object.values(value).every(frozen))
    expect(frozen(result)).toBe(true)
    expect(result.additionalContexts).toEqual(['note'])
    expect(() => {
      ;(result.value as { text: string }).text = 'x'
    }).toThrow(TypeError)
    expect(() => (result.content as ContentBlock[]).push({ type: 'text', text: 'x' })).toThrow(TypeError)
  })

  it('S6.4 an observer that tries to mutate the result cannot change what others see', async () => {
    const seen: unknown[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/result', (result) => {
        ;(result as { isError: boolean }).isError = true
      })
      ctx.on('tools/result', (result) => void seen.push(result.isError))
    })
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(result.isError).toBe(false)
    expect(seen).toEqual([false])
  })

  it('S6.4 render cannot keep a handle to mutate the content after the fact', async () => {
    let kept: { type: 'text'; text: string }[] = []
    const root = await setup((ctx) =>
      ctx.tools.register(echoTool({ output: { schema: z.object({ text: z.string() }), render: () => (kept = [{ type: 'text', text: 'original' }]) } })),
    )
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    kept[0]!.text = 'changed later'
    kept.push({ type: 'text', text: 'appended' })
    expect(result.content).toEqual([{ type: 'text', text: 'original' }])
  })

  it('S6.4 the body cannot keep a handle to mutate the value after the fact', async () => {
    const kept = { text: 'original' }
    const root = await setup((ctx) => ctx.tools.register(echoTool({ execute: () => kept })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    kept.text = 'changed later'
    expect(result.value).toEqual({ text: 'original' })
    expect(Object.isFrozen(kept)).toBe(false) // the body's own object was copied, not frozen under its feet
  })
})

describe('failures are values (S6.5)', () => {
  const run = async (execute: (args: { x?: unknown }, exec: ToolExecution) => unknown, apply?: (ctx: Context) => void) => {
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(execute))
      apply?.(ctx)
    })
    return root.tools.execute({ name: 'body', arguments: {} })
  }

  it('S6.5 a body throwing an Error is an isError result with its message', async () => {
    const result = await run(() => {
      throw new Error('disk on fire')
    })
    expect(result).toMatchObject({ isError: true, error: { kind: 'failed' } })
    expect(result.value).toBeUndefined()
    expect(text(result.content)).toBe('Error: Tool "body" failed: disk on fire')
  })

  it('S6.5 a body throwing an Error with a cause keeps the cause in the message (what the tool wrapped reaches the model)', async () => {
    const result = await run(() => {
      throw new Error('could not save', { cause: new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }) })
    })
    expect(text(result.content)).toBe('Error: Tool "body" failed: could not save (cause: TypeError: fetch failed (cause: Error: connect ECONNREFUSED 127.0.0.1:9))')
  })

  it('S6.5 a body rejecting asynchronously is an isError result', async () => {
    const result = await run(async () => {
      await tick()
      throw new TypeError('late')
    })
    expect(text(result.content)).toContain('late')
  })

  it('S6.5 non-Error throws (string, object, undefined, null, symbol, hostile) give readable messages', async () => {
    const hostile = {
      toJSON() {
        throw new Error('no')
      },
    }
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const errorWithThrowingMessage = Object.defineProperty(new Error(), 'message', { get: () => { throw new Error('x') } })
    const cases: [unknown, RegExp][] = [
      ['plain string', /failed: plain string$/],
      [{ code: 'E_X', detail: 1 }, /failed: \{"code":"E_X","detail":1\}$/],
      [undefined, /failed: undefined$/],
      [null, /failed: null$/],
      [Symbol('sym'), /failed: Symbol\(sym\)$/],
      [42, /failed: 42$/],
      [hostile, /failed: an unprintable value was thrown$/],
      [revoked.proxy, /failed: /],
      [errorWithThrowingMessage, /failed: /],
      [new Error(''), /failed: Error$/],
    ]
    for (const [thrown, message] of cases) {
      const result = await run(() => {
        throw thrown
      })
      expect(result.isError).toBe(true)
      expect(text(result.content)).toMatch(message)
    }
  })

  it('S6.5 a value that fails output.schema is an isError result', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool({ execute: () => ({ txt: 'typo' }) })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-output' } })
    expect(text(result.content)).toMatch(/returned an invalid value/)
    expect(result.value).toBeUndefined()
  })

  it('S6.5 a non-JSON return value (BigInt, Date, cycle, function, undefined, NaN) is an isError result', async () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    for (const value of [10n, new Date(), cycle, () => 1, undefined, Number.NaN, { a: [undefined] }]) {
      const result = await run(() => value)
      expect(result, String(value)).toMatchObject({ isError: true, error: { kind: 'invalid-output' } })
    }
  })

  it('S6.5 a Map returned for an object schema says it is a Map, not only what the schema expected', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool({ execute: () => new Map([['text', 'a']]) as never })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-output' } })
    expect(result.error?.message).toContain('returned an invalid value: $: Map is not plain JSON; pass a plain object, array or string; and against output.schema:\n✖ Invalid input: expected string')
  })

  it('S6.5 content blocks returned from execute are not a canonical value when the schema says otherwise', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool({ execute: () => [{ type: 'text', text: 'prose' }] })))
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).error?.kind).toBe('invalid-output')
  })

  it('S6.5 S9.2 a throwing render, or one returning malformed blocks, loses nothing: the call keeps its value (the tool ran), the content says what failed with the value as JSON, one stderr line tells the author', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const render of [() => { throw new Error('render broke') }, () => 'just a string', () => [{ type: 'text', text: 1 }], () => [null]]) {
      const root = await setup((ctx) => ctx.tools.register(echoTool({ output: { schema: z.object({ text: z.string() }), render } })))
      const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
      expect(result).toMatchObject({ isError: false, value: { text: 'a' } })
      expect(text(result.content)).toMatch(/^The tool "echo" ran, but rendering its result failed \(.+\)\. Its value as JSON: \{"text":"a"\}$/)
    }
    expect(printed.mock.calls.map((call) => call.length)).toEqual([1, 1, 1, 1])
    expect(printed.mock.calls[0]![0]).toMatch(/^\[ptc-runner\] output\.render of "echo" failed; its value is shown as JSON instead: .*render broke/)
  })

  it('S2 S6.5 a projectContent that throws keeps the value and the rendered content, with a note (the tool ran: nothing is lost)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const root = await setup((ctx) => ctx.tools.register(echoTool({ projectContent: () => { throw new Error('the spill folder is a symlink') } })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(result.isError).toBe(false)
    expect(text(result.content)).toMatch(/\(Projecting the content of "echo" failed: .*the spill folder is a symlink; the content above is as rendered\.\)$/)
  })

  it('S6.5 a throwing (sync or async) pre-execute listener denies, fail-closed', async () => {
    for (const listener of [() => { throw new Error('policy bug') }, async () => { throw new Error('policy bug') }]) {
      let ran = false
      const result = await run(() => ((ran = true), null), (ctx) => ctx.on('tools/pre-execute', listener as never))
      expect(result).toMatchObject({ isError: true, error: { kind: 'denied' } })
      expect(text(result.content)).toMatch(/policy check failed.*policy bug/)
      expect(ran).toBe(false)
    }
  })

  it('S6.5 a pre-execute listener returning garbage denies, fail-closed', async () => {
    for (const answer of [undefined, null, 'allow', { kind: 'ALLOW' }, { kind: 'maybe' }, 1]) {
      let ran = false
      const result = await run(() => ((ran = true), null), (ctx) => ctx.on('tools/pre-execute', (() => answer) as never))
      expect(result.error?.kind, JSON.stringify(answer)).toBe('denied')
      expect(ran).toBe(false)
    }
  })

  it('S6.5 a throwing post-execute listener withholds the result as an isError', async () => {
    const result = await run(() => 'secret', (ctx) => ctx.on('tools/post-execute', () => { throw new Error('post bug') }))
    expect(result).toMatchObject({ isError: true, error: { kind: 'failed' } })
    expect(result.value).toBeUndefined()
    expect(text(result.content)).toMatch(/result policy failed.*post bug/)
    expect(text(result.content)).not.toContain('secret')
  })

  it('S6.5 a post-execute listener returning garbage withholds the result', async () => {
    for (const answer of [undefined, { kind: 'allow' }, 'accept']) {
      const result = await run(() => 'secret', (ctx) => ctx.on('tools/post-execute', (() => answer) as never))
      expect(result.isError).toBe(true)
      expect(result.value).toBeUndefined()
    }
  })

  it('S6.5 a throwing tools/result listener leaves the result unaffected and other observers still run', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    const seen: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/result', () => {
        throw new Error('observer 1 crashed')
      })
      ctx.on('tools/result', async () => {
        throw new Error('observer 2 rejected')
      })
      ctx.on('tools/result', (result) => void seen.push(result.callId))
    })
    const result = await root.tools.execute({ callId: 'r1', name: 'echo', arguments: { text: 'a' } })
    await tick()
    expect(result).toMatchObject({ isError: false, value: { text: 'a' } })
    expect(seen).toEqual(['r1'])
    expect(errors.mock.calls.map((call) => String(call[1]))).toEqual(['Error: observer 1 crashed', 'Error: observer 2 rejected'])
  })

  it('S6.5 an unknown tool is an isError result that lists the available tools', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    const result = await root.tools.execute({ name: 'rm_rf', arguments: {} })
    expect(result).toMatchObject({ isError: true, name: 'rm_rf', error: { kind: 'unknown-tool' } })
    expect(text(result.content)).toBe('Error: Unknown tool "rm_rf". Available tools: echo.')
  })

  it('S6.5 invalid arguments are an isError result explaining the field', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 5 } })
    expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-arguments' } })
    expect(text(result.content)).toMatch(/Invalid arguments for "echo"/)
    expect(text(result.content)).toMatch(/text/)
    expect(result.arguments).toEqual({ text: 5 })
  })

  it('S6.5 non-JSON arguments are an isError result naming the path; the body never runs', async () => {
    let ran = false
    const root = await setup((ctx) => ctx.tools.register(echoTool({ execute: () => ((ran = true), { text: '' }) })))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a', extra: { when: new Date() } } })
    expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-arguments' } })
    expect(text(result.content)).toMatch(/\$\.extra\.when: Date is not plain JSON/)
    expect(ran).toBe(false)
  })

  it('S6.5 a domain outcome like a non-zero exit is a value, not an error', async () => {
    const root = await setup((ctx) =>
      ctx.tools.register(
        defineTool({
          name: 'sh',
          description: 'Run.',
          parameters: { command: { type: 'string', required: true } },
          output: {
            schema: z.object({ exitCode: z.number(), stderr: z.string() }),
            render: (_args, value) => [{ type: 'text', text: `exit ${value.exitCode}: ${value.stderr}` }],
          },
          execute: () => ({ exitCode: 2, stderr: 'no such file' }),
        }),
      ),
    )
    const result = await root.tools.execute({ name: 'sh', arguments: { command: 'ls /nope' } })
    expect(result).toMatchObject({ isError: false, value: { exitCode: 2, stderr: 'no such file' } })
    expect(result).not.toHaveProperty('error')
  })

  it('S6.5 execute() never rejects on hostile calls and options', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    const hostileCall = new Proxy({}, { get: () => { throw new Error('hostile call') } })
    const hostileOptions = { get signal(): AbortSignal { throw new Error('hostile options') } }
    const inputs: [unknown, unknown][] = [
      [null, undefined],
      [undefined, undefined],
      [hostileCall, undefined],
      [{ name: { toString: () => { throw new Error('x') } }, arguments: {} }, undefined],
      [{ name: 'echo', arguments: { text: 'a' } }, null],
      [{ name: 'echo', arguments: { text: 'a' } }, hostileOptions],
      [{ name: 'echo', arguments: { text: 'a' } }, { signal: { aborted: false } }],
      [{ name: 'echo', arguments: { text: 'a' } }, { signal: 'stop' }],
    ]
    for (const [index, [call, options]] of inputs.entries()) {
      const result = await root.tools.execute(call as never, options as never).catch((error) => ({ rejected: error }))
      // null options mean "no options": that call succeeds; every other input is an error result
      expect(result, `input #${index}`).toHaveProperty('isError', index !== 4)
    }
  })

  it('S6.5 a malformed caller signal is an error result, never a silently ignored stop', async () => {
    const root = await setup((ctx) => ctx.tools.register(echoTool()))
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'a' } }, { signal: { aborted: false } as never })
    expect(result.isError).toBe(true)
  })
})

describe('post-execute decisions on the value (S5.4, S5.5)', () => {
  const valueTool = () =>
    defineTool({
      name: 'lookup',
      description: 'd',
      parameters: {},
      output: {
        schema: z.object({ id: z.string(), token: z.string() }),
        render: (_args, value) => [{ type: 'text', text: `id=${value.id} token=${value.token}` }],
        presentationMeta: (_args, value) => ({ id: value.id }),
      },
      execute: () => ({ id: 'u1', token: 'tok-123' }),
    })

  it('S5.4 accept with content replaces the content and keeps value and metadata', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'text', text: 'redacted' }] }))
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'redacted' }], value: { id: 'u1', token: 'tok-123' }, presentationMeta: { id: 'u1' } })
  })

  it('S5.5 replacing content is presentation, not secrecy: the value stays readable by programs', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'text', text: 'token hidden' }] }))
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(text(result.content)).not.toContain('tok-123')
    expect((result.value as { token: string }).token).toBe('tok-123')
  })

  it('S5.4 accept with value replaces the canonical value, re-validates it and recomputes content and metadata', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'accept', value: { id: 'u2', token: '***' } }))
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(result).toMatchObject({ isError: false, value: { id: 'u2', token: '***' }, content: [{ type: 'text', text: 'id=u2 token=***' }], presentationMeta: { id: 'u2' } })
    expect(JSON.stringify(result)).not.toContain('tok-123')
  })

  it('S5.4 an invalid replacement value becomes an isError result and the original value is not leaked', async () => {
    for (const value of [{ id: 'u2' }, 5, { id: 'u2', token: 10n }]) {
      const root = await setup((ctx) => {
        ctx.tools.register(valueTool())
        ctx.on('tools/post-execute', () => ({ kind: 'accept', value }) as never)
      })
      const result = await root.tools.execute({ name: 'lookup', arguments: {} })
      expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-output' } })
      expect(result.value).toBeUndefined()
      expect(JSON.stringify(result)).not.toContain('tok-123')
    }
  })

  it('S5.4 malformed replacement content becomes an isError result', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'markdown', md: '#' }] }) as never)
    })
    expect((await root.tools.execute({ name: 'lookup', arguments: {} })).error?.kind).toBe('invalid-output')
  })

  it('S5.4 block removes the value and returns corrective feedback as an isError result', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'Do not fetch tokens; ask the user for a scoped one.' }))
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(result).toMatchObject({ isError: true, error: { kind: 'blocked', message: 'Do not fetch tokens; ask the user for a scoped one.' } })
    expect(result).not.toHaveProperty('value')
    expect(text(result.content)).toBe('Error: Do not fetch tokens; ask the user for a scoped one.')
    expect(JSON.stringify(result)).not.toContain('tok-123')
  })

  it('S5.4 a block with empty feedback still explains itself', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: '' }))
    })
    expect(text((await root.tools.execute({ name: 'lookup', arguments: {} })).content)).toBe('Error: The result was blocked by policy.')
  })

  it('S5.4 a post-execute listener cannot mutate the pending result in place (only decisions change it)', async () => {
    const errors: string[] = []
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', (_execution, result, next) => {
        for (const attempt of [
          () => void (result.content as ContentBlock[]).push({ type: 'text', text: 'injected' }),
          () => void ((result.content as ContentBlock[])[0] = { type: 'text', text: 'swapped' }),
          () => void ((result.content[0] as { text: string }).text = 'edited'),
          () => void ((result.value as { token: string }).token = 'edited'),
          () => void ((result as { isError: boolean }).isError = true),
        ]) {
          try {
            attempt()
            errors.push(String(attempt))
          } catch {}
        }
        return next()
      })
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(errors).toEqual([])
    expect(result.content).toEqual([{ type: 'text', text: 'id=u1 token=tok-123' }])
  })

  it('S5.4 post-execute is a waterfall: a later listener sees the pending result and the first decision wins', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', async (_execution, _result, next) => {
        const later = await next()
        return later.kind === 'block' ? later : { kind: 'accept', content: [{ type: 'text', text: 'outer' }] }
      })
      ctx.on('tools/post-execute', (_execution, result) => ({ kind: 'accept', additionalContext: `saw ${(result.value as { id: string }).id}` }))
    })
    const result = await root.tools.execute({ name: 'lookup', arguments: {} })
    expect(text(result.content)).toBe('outer')
    expect(result.additionalContexts).toBeUndefined() // the outer decision did not carry it
  })

  it('S5.4 additionalContext is added for the model, and omitted for calls from code (S9.5)', async () => {
    const root = await setup((ctx) => {
      ctx.tools.register(valueTool())
      ctx.on('tools/post-execute', () => ({ kind: 'accept', additionalContext: 'remember: tokens rotate daily' }))
    })
    expect((await root.tools.execute({ name: 'lookup', arguments: {} })).additionalContexts).toEqual(['remember: tokens rotate daily'])
    const fromCode = await root.tools.execute({ name: 'lookup', arguments: {} }, { parentToken: Symbol('run_code') })
    expect(fromCode).not.toHaveProperty('additionalContexts')
  })

  it('S5.4 errors bypass post-execute: policy only sees successful values', async () => {
    let called = false
    const root = await setup((ctx) => {
      ctx.tools.register(bodyTool(() => { throw new Error('x') }))
      ctx.on('tools/post-execute', (_execution, _result, next) => ((called = true), next()))
    })
    await root.tools.execute({ name: 'body', arguments: {} })
    expect(called).toBe(false)
  })
})

describe('tools/execute sees a JSON value type', () => {
  it('the value a wrapper gets from next() is what the body returned', async () => {
    let seen: JsonValue | undefined
    const root = await setup((ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/execute', async (_execution, next) => ((seen = await next()), seen))
    })
    await root.tools.execute({ name: 'echo', arguments: { text: 'w' } })
    expect(seen).toEqual({ text: 'w' })
  })
})

describe('boundary refusals from a tool body', () => {
  it('S5.1 a ToolDeniedError thrown by a body is a denied result, not a failure', async () => {
    const { ToolDeniedError } = await import('../../../src/errors/ptc-error.ts')
    const { Context } = await import('cordis')
    const { ToolRegistry } = await import('../../../src/pipeline/tool-registry.ts')
    const { defineTool } = await import('../../../src/tools/define-tool.ts')
    const { z } = await import('zod')
    const root = new Context()
    await root.plugin(ToolRegistry)
    await root.plugin({
      name: 'refuser',
      inject: ['tools'],
      apply: (ctx: import('cordis').Context) => {
        ctx.tools.register(
          defineTool({
            name: 'refuse',
            description: 'Always refuses.',
            parameters: z.object({}),
            output: { schema: z.null(), render: () => [] },
            execute: () => {
              throw new ToolDeniedError('path /etc is outside the workspace roots')
            },
          }),
        )
      },
    })
    const result = await root.tools.execute({ name: 'refuse', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ kind: 'denied', message: 'path /etc is outside the workspace roots' })
  })
})
