/**
 * A run cancelled in the same moment as one of its calls is approved (SPEC S8.2, S9.1): the
 * cancel wins, the call is not made, and the run says it was cancelled. In the worker process the
 * cancel used to reach the host's side of the call only when the worker confirmed it, so an
 * approval granted in that window let the call run after the run had reported itself cancelled.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Approval, type ApprovalResponder } from '../../../src/policy/approval.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { createRoot } from '../../helpers/registry.ts'

describe.each(['process', 'inline'] as const)('a cancel as the approval is granted, isolation %s', (isolation) => {
  let root: Context
  let dispose: () => unknown
  let respond: ApprovalResponder
  const made: string[] = []

  beforeAll(async () => {
    root = await createRoot()
    await root.plugin(Approval)
    const fiber = root.plugin(Ptc, { isolation, poolSize: 1, checkers: 1 })
    await fiber
    dispose = () => fiber.dispose()
    await root.plugin({
      name: 'approval-cancel-tools',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(
          defineTool({
            name: 'effect',
            description: 'A call with an effect, which needs approval.',
            parameters: z.object({ tag: z.string() }),
            output: { schema: z.object({ done: z.literal(true) }), render: () => [{ type: 'text', text: 'done' }] },
            execute: ({ tag }) => (made.push(tag), { done: true as const }),
          }),
        )
        ctx.on('tools/pre-execute', (execution, next) => (execution.name === 'effect' ? { kind: 'ask', reason: 'test policy' } : next()))
      },
    })
    root.approval.respond((request, next) => respond(request, next))
  }, 120_000)
  afterAll(() => dispose())

  it('S8.2 S9.1 the run cancelled, then the approval granted in the same tick: the call is not made and the run is cancelled', async () => {
    const caller = new AbortController()
    respond = () =>
      new Promise((resolve) => {
        // Both in the same tick, the cancel first, as a client that cancels while its user clicks "allow".
        setTimeout(() => {
          caller.abort()
          resolve('allowed-once')
        }, 20)
      })
    const result = await root.ptc.run("await tools.effect({ tag: 'cancelled-run' }); return 1", { typecheck: false, timeoutMs: 20_000, signal: caller.signal, agent: 'approver' })
    expect(result, JSON.stringify(result.error)).toMatchObject({ status: "cancelled" })
    // A later run's call is made (the tool works), and by then anything the cancelled run could
    // still have started has reached the host.
    respond = async () => 'allowed-once' as const
    expect(await root.ptc.run("await tools.effect({ tag: 'next-run' }); return 2", { typecheck: false, timeoutMs: 20_000, agent: 'approver' })).toMatchObject({ status: 'ok', value: 2 })
    expect(made).toEqual(['next-run'])
  }, 60_000)
})
