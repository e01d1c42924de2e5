import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { CANCELLED_BEFORE_START_MESSAGE } from '../../../src/pipeline/results.ts'
import { Approval } from '../../../src/policy/approval.ts'
import type { ApprovalRequest, PreToolDecision } from '../../../src/tools/types.ts'
import { createRoot, echoTool, text, usePlugin } from '../../helpers/registry.ts'

async function setup(apply: (ctx: Context) => void, options: { approval?: boolean } = {}) {
  const root = await createRoot()
  if (options.approval) await root.plugin(Approval)
  let ran = 0
  await usePlugin(
    root,
    (ctx) => {
      ctx.tools.register(echoTool({ execute: (args: { text: string }) => (ran++, { text: args.text }) }))
      apply(ctx)
    },
    'policy',
    options.approval ? ['tools', 'approval'] : ['tools'],
  )
  return { root, ran: () => ran, call: (agent?: string) => root.tools.execute({ name: 'echo', arguments: { text: 'hi' } }, agent === undefined ? {} : { agent }) }
}

describe('monotonic guards (S4.1)', () => {
  it('S4.1 a guard denial cannot be overturned by a later allow', async () => {
    const { call, ran } = await setup((ctx) => {
      ctx.tools.guard(() => 'never echo')
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }))
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), { prepend: true })
    })
    const result = await call()
    expect(result).toMatchObject({ isError: true, error: { kind: 'denied', message: 'never echo' } })
    expect(text(result.content)).toBe('Error: never echo')
    expect(ran()).toBe(0)
  })

  it('S4.1 the guard runs after every pre-execute listener, including ones registered after it or prepended', async () => {
    const order: string[] = []
    const { call } = await setup((ctx) => {
      ctx.on('tools/pre-execute', (_execution, next) => (order.push('early listener'), next()))
      ctx.tools.guard(() => void order.push('guard'))
      ctx.on('tools/pre-execute', (_execution, next) => (order.push('late listener'), next()))
      ctx.on('tools/pre-execute', (_execution, next) => (order.push('prepended listener'), next()), { prepend: true })
    })
    await call()
    expect(order).toEqual(['prepended listener', 'early listener', 'late listener', 'guard'])
  })

  it('S4.1 a guard sees the execution even when a listener answers allow without calling next()', async () => {
    let guarded = false
    const { call, ran } = await setup((ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), { prepend: true })
      ctx.tools.guard((execution) => ((guarded = true), execution.name === 'echo' ? 'stop' : undefined))
    })
    expect((await call()).error?.message).toBe('stop')
    expect(guarded).toBe(true)
    expect(ran()).toBe(0)
  })

  it('S4.1 a guard registered by a later plugin still denies regardless of plugin order', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }))
    }, 'permissive')
    await usePlugin(root, (ctx) => ctx.tools.guard(() => 'late guard says no'), 'strict')
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'x' } })).error?.message).toBe('late guard says no')
  })

  it('S4.1 a throwing guard denies (fail-closed) and names the failure', async () => {
    const { call, ran } = await setup((ctx) => ctx.tools.guard(() => { throw new Error('guard bug') }))
    const result = await call()
    expect(result).toMatchObject({ isError: true, error: { kind: 'denied' } })
    expect(text(result.content)).toMatch(/A guard failed, so the call was denied: guard bug/)
    expect(ran()).toBe(0)
  })

  it('S4.1 a guard answer other than a string or undefined denies, never allows', async () => {
    for (const answer of [null, false, 0, '', {}, true]) {
      const { call, ran } = await setup((ctx) => ctx.tools.guard(() => answer as never))
      const result = await call()
      expect(result.error?.kind, JSON.stringify(answer)).toBe('denied')
      expect(ran()).toBe(0)
    }
  })

  it('S4.1 undefined from every guard changes nothing; the first denial stops later guards', async () => {
    const seen: string[] = []
    const { call } = await setup((ctx) => {
      ctx.tools.guard(() => void seen.push('a'))
      ctx.tools.guard(() => (seen.push('b'), 'b denies'))
      ctx.tools.guard(() => void seen.push('c'))
    })
    expect((await call()).error?.message).toBe('b denies')
    expect(seen).toEqual(['a', 'b'])
  })

  it('S4.1 guards cannot change the execution: it is the same frozen record policy and the body see', async () => {
    let guardSaw: unknown
    let bodySaw: unknown
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool({ execute: (args: { text: string }, exec: unknown) => ((bodySaw = exec), { text: args.text }) }))
      ctx.tools.guard((execution) => {
        guardSaw = execution
        expect(() => ((execution as { arguments: unknown }).arguments = { text: 'forged' })).toThrow(TypeError)
        return undefined
      })
    })
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'real' } })).value).toEqual({ text: 'real' })
    expect(guardSaw).toBe(bodySaw)
  })

  it('S4.1 a guard denial also beats ask: the approver is never asked', async () => {
    let asked = false
    const { call } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
        ctx.tools.guard(() => 'guarded')
        ctx.on('approval/request', () => ((asked = true), 'allowed-once'))
      },
      { approval: true },
    )
    expect((await call('agent-1')).error?.message).toBe('guarded')
    expect(asked).toBe(false)
  })
})

describe('pre-execute decisions (S5.1)', () => {
  it('S5.1 allow runs the call', async () => {
    const { call, ran } = await setup((ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'allow' })))
    expect((await call()).isError).toBe(false)
    expect(ran()).toBe(1)
  })

  it('S5.1 deny materializes a model-facing reason and an optional structured error identity', async () => {
    const { call, ran } = await setup((ctx) =>
      ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'Writes outside the workspace are not allowed.', info: { code: 'outside-workspace', root: '/w' } })),
    )
    const result = await call()
    expect(result).toMatchObject({
      isError: true,
      error: { kind: 'denied', message: 'Writes outside the workspace are not allowed.', info: { code: 'outside-workspace', root: '/w' } },
      content: [{ type: 'text', text: 'Error: Writes outside the workspace are not allowed.' }],
    })
    expect(result).not.toHaveProperty('value')
    expect(Object.isFrozen(result.error!.info)).toBe(true)
    expect(ran()).toBe(0)
  })

  it('S5.1 deny with non-JSON info keeps the denial and drops the info; an empty reason still explains', async () => {
    const { call } = await setup((ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: '', info: { at: new Date() } }) as never))
    const result = await call()
    expect(result.error).toEqual({ kind: 'denied', message: 'Denied by policy.' })
  })

  it('S5.1 cancel selects the canonical cancellation result, not presented as a policy denial, saying nothing was done (the tool never started)', async () => {
    const { call, ran } = await setup((ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'cancel' })))
    const result = await call()
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled', message: CANCELLED_BEFORE_START_MESSAGE } })
    expect(text(result.content)).toBe(CANCELLED_BEFORE_START_MESSAGE)
    expect(text(result.content)).not.toMatch(/denied|policy|Error/i)
    expect(ran()).toBe(0)
  })

  it('S5.1 the waterfall is reorderable: an outer listener sees the inner decision and may tighten it', async () => {
    const { call } = await setup((ctx) => {
      ctx.on('tools/pre-execute', async (_execution, next) => {
        const inner = await next()
        return inner.kind === 'allow' ? { kind: 'deny', reason: 'outer tightened' } : inner
      })
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }))
    })
    expect((await call()).error?.message).toBe('outer tightened')
  })

  it('S5.1 a listener calling next() twice is a policy failure, so the call is denied', async () => {
    const { call, ran } = await setup((ctx) => ctx.on('tools/pre-execute', (_execution, next) => (next(), next())))
    expect((await call()).error?.kind).toBe('denied')
    expect(ran()).toBe(0)
  })

  it('S5.1 ask proceeds only on allowed-once; denied and unavailable are distinguishable denials', async () => {
    const cases: [string | undefined, boolean, RegExp][] = [
      ['allowed-once', false, /^hi$/],
      ['denied', true, /^Error: Approval was refused \(writes a file\), so the call was not made\. Do not ask again for the same call: do the work another way, or ask the user what they want\.$/],
      [undefined, true, /no approval responder answered/], // no responder answers: unavailable
    ]
    for (const [answer, isError, message] of cases) {
      const { call, ran } = await setup(
        (ctx) => {
          ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'writes a file', displayReason: 'Allow writing?' }))
          if (answer) ctx.on('approval/request', () => answer as never)
        },
        { approval: true },
      )
      const result = await call('agent-1')
      expect(result.isError, String(answer)).toBe(isError)
      expect(text(result.content)).toMatch(message)
      if (isError) expect(result.error?.kind).toBe('denied')
      expect(ran()).toBe(isError ? 0 : 1)
    }
  })

  it('S5.1 the approver gets the frozen execution, the audit reason and the display reason', async () => {
    let request: ApprovalRequest | undefined
    const { call } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'audit: fs write', displayReason: '允许写入文件吗？' }))
        ctx.on('approval/request', (req) => ((request = req), 'allowed-once'))
      },
      { approval: true },
    )
    await call('agent-1')
    expect(request).toMatchObject({ reason: 'audit: fs write', displayReason: '允许写入文件吗？' })
    expect(request!.execution).toMatchObject({ name: 'echo', agent: 'agent-1', arguments: { text: 'hi' } })
    expect(Object.isFrozen(request!.execution.arguments)).toBe(true)
  })

  it('S8.1 allowed-once covers one call only: the next call asks again', async () => {
    let asked = 0
    const { call, ran } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
        ctx.on('approval/request', () => (++asked === 1 ? 'allowed-once' : 'denied'))
      },
      { approval: true },
    )
    expect((await call('a')).isError).toBe(false)
    expect((await call('a')).isError).toBe(true)
    expect(asked).toBe(2)
    expect(ran()).toBe(1)
  })

  it('S5.1 a responder that throws or answers garbage denies', async () => {
    const responders: unknown[] = [() => { throw new Error('ui crashed') }, () => 'yes', () => ({ kind: 'allowed-once' }), async () => 'ALLOWED-ONCE']
    for (const responder of responders) {
      const { call, ran } = await setup(
        (ctx) => {
          ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
          ctx.on('approval/request', responder as never)
        },
        { approval: true },
      )
      expect((await call('a')).error?.kind).toBe('denied')
      expect(ran()).toBe(0)
    }
  })

  it('S5.1 responders form a waterfall: one may defer to the next with next()', async () => {
    const { call } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
        ctx.approval.respond((request, next) => (request.execution.agent === 'ci' ? 'denied' : next()))
        ctx.approval.respond(() => 'allowed-once')
      },
      { approval: true },
    )
    expect((await call('ci')).error?.kind).toBe('denied')
    expect((await call('human')).isError).toBe(false)
  })
})

describe('ask without a channel or an agent (S5.3, S8.2)', () => {
  it('S5.3 ask without an agent denies, even with a responder that would allow', async () => {
    let asked = false
    const { call, ran } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'risky' }))
        ctx.on('approval/request', () => ((asked = true), 'allowed-once'))
      },
      { approval: true },
    )
    const result = await call()
    expect(result).toMatchObject({ isError: true, error: { kind: 'denied' } })
    expect(text(result.content)).toMatch(/needs approval \(risky\), but it was made without an agent/)
    expect(asked).toBe(false)
    expect(ran()).toBe(0)
  })

  it('S5.3 ask with an agent but no responder denies as unavailable', async () => {
    const { call, ran } = await setup((ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'ask' })), { approval: true })
    const result = await call('agent-1')
    expect(result.error?.kind).toBe('denied')
    expect(text(result.content)).toMatch(/no approval responder answered/)
    expect(ran()).toBe(0)
  })

  it('S8.2 ask with no approval service installed at all denies as unavailable', async () => {
    const { call, ran } = await setup((ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'ask' })))
    expect(text((await call('agent-1')).content)).toMatch(/no approval responder answered/)
    expect(ran()).toBe(0)
  })

  it('S5.3 a non-string agent counts as no agent', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
      ctx.on('approval/request', () => 'allowed-once')
    })
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { agent: { id: 'x' } as never })
    expect(text(result.content)).toMatch(/without an agent/)
    expect(result.agent).toBeUndefined()
  })

  it('S5.3 a caller stop while waiting for approval is a cancellation, and the body never runs', async () => {
    const controller = new AbortController()
    const { root, ran } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
        ctx.on('approval/request', async () => {
          controller.abort()
          return 'allowed-once' as const
        })
      },
      { approval: true },
    )
    const result = await root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { agent: 'a', signal: controller.signal })
    expect(result.error?.kind).toBe('cancelled')
    expect(ran()).toBe(0)
  })

  it('S5.1 every decision kind is covered by the type', () => {
    const kinds = { allow: true, deny: true, cancel: true, ask: true } as const satisfies Record<PreToolDecision['kind'], true>
    expect(Object.keys(kinds)).toHaveLength(4)
  })
})

describe('the caller stop ends every wait (S6.3, S1.3)', () => {
  const hang = () => new Promise<never>(() => {})

  it('S6.3 a pre-execute listener that never answers cannot outlive the caller stop', async () => {
    const controller = new AbortController()
    const { root, ran } = await setup((ctx) => ctx.on('tools/pre-execute', hang))
    const pending = root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    const result = await pending
    expect(result.error?.kind).toBe('cancelled')
    expect(ran()).toBe(0)
  })

  it('S6.3 an approval prompt nobody answers ends as a cancellation when the user stops', async () => {
    const controller = new AbortController()
    const { root, ran } = await setup(
      (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
        ctx.on('approval/request', hang)
      },
      { approval: true },
    )
    const pending = root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { agent: 'a', signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    expect((await pending).error?.kind).toBe('cancelled')
    expect(ran()).toBe(0)
  })

  it('S6.3 a post-execute listener that never answers cannot outlive the caller stop', async () => {
    const controller = new AbortController()
    const { root } = await setup((ctx) => ctx.on('tools/post-execute', hang))
    const pending = root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    const result = await pending
    expect(result.error?.kind).toBe('cancelled')
    expect(result.value).toBeUndefined()
  })

  it('S5.4 a post-execute decision or projected content answered as a thenable (not a Promise) is awaited', async () => {
    const thenable = <T,>(value: T) => ({ then: (resolve: (value: T) => void) => setTimeout(() => resolve(value), 1) })
    const { root } = await setup((ctx) => ctx.on('tools/post-execute', (() => thenable({ kind: 'block', feedback: 'held back' })) as never))
    const blocked = await root.tools.execute({ name: 'echo', arguments: { text: 'x' } })
    expect(blocked.error).toMatchObject({ kind: 'blocked', message: 'held back' })
    const projecting = await createRoot()
    await usePlugin(projecting, (ctx) => ctx.tools.register(echoTool({ projectContent: (() => thenable([{ type: 'text', text: 'projected' }])) as never })))
    const projected = await projecting.tools.execute({ name: 'echo', arguments: { text: 'x' } })
    expect(projected.content).toEqual([{ type: 'text', text: 'projected' }])
  })

  it('S6.3 a projectContent that never finishes cannot outlive the caller stop', async () => {
    const controller = new AbortController()
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool({ projectContent: hang })))
    const pending = root.tools.execute({ name: 'echo', arguments: { text: 'x' } }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    expect((await pending).error?.kind).toBe('cancelled')
  })
})
