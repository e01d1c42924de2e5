import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import * as TimeoutPolicy from '../../../src/policy/timeout-policy.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolExecution } from '../../../src/tools/types.ts'
import { createRoot, text, tick, usePlugin } from '../../helpers/registry.ts'

const slowTool = (execute: (exec: ToolExecution) => Promise<string>, timeoutMs?: number) =>
  defineTool({
    name: 'slow',
    description: 'Takes its time.',
    parameters: {},
    output: { schema: z.string(), render: (_args, value) => [{ type: 'text', text: value }] },
    execute: (_args, exec) => execute(exec as ToolExecution),
    ...(timeoutMs !== undefined && { timeoutMs }),
  })

async function setup(tool: ReturnType<typeof slowTool>, config: TimeoutPolicy.Config = {}) {
  const root = await createRoot()
  await root.plugin(TimeoutPolicy, config)
  await usePlugin(root, (ctx) => ctx.tools.register(tool))
  return root
}

describe('timeout policy (S2 timeoutMs, S3 tools/execute)', () => {
  it('S2 a body that ignores its signal still yields a timeout result near the deadline', async () => {
    const root = await setup(slowTool(() => new Promise(() => {}), 40))
    const started = performance.now()
    const result = await root.tools.execute({ name: 'slow', arguments: {} })
    const elapsed = performance.now() - started
    expect(result).toMatchObject({ isError: true, error: { kind: 'timeout' } })
    expect(text(result.content)).toBe('Error: Tool "slow" did not finish within its 40 ms budget and was stopped.')
    // Not before the deadline; and the body never settles, so any result at all is the timeout's.
    expect(elapsed).toBeGreaterThanOrEqual(35)
  })

  it('S1.3 a cooperative body sees its signal aborted at the deadline', async () => {
    let aborted = false
    let reason: unknown
    const root = await setup(
      slowTool(
        (exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => {
              aborted = true
              reason = exec.signal.reason
              reject(exec.signal.reason)
            })
          }),
        30,
      ),
    )
    const result = await root.tools.execute({ name: 'slow', arguments: {} })
    expect(aborted).toBe(true)
    expect((reason as Error).name).toBe('ToolTimeoutError')
    expect(result.error?.kind).toBe('timeout')
  })

  it('S6.3 the caller abort still works with the timeout wrapper installed', async () => {
    let bodySawAbort = false
    const root = await setup(
      slowTool(
        (exec) =>
          new Promise((resolve) => {
            exec.signal.addEventListener('abort', () => {
              bodySawAbort = true
              resolve('stopped')
            })
          }),
        5_000,
      ),
    )
    const controller = new AbortController()
    const pending = root.tools.execute({ name: 'slow', arguments: {} }, { signal: controller.signal })
    await tick(10)
    controller.abort()
    const result = await pending
    expect(result.error?.kind).toBe('cancelled')
    // Cancelled (the abort), not a timeout at the 5 s budget.
    expect(bodySawAbort).toBe(true)
  })

  it('S6.3 the caller abort works even when the body ignores every signal', async () => {
    const root = await setup(slowTool(() => new Promise(() => {}), 5_000))
    const controller = new AbortController()
    const pending = root.tools.execute({ name: 'slow', arguments: {} }, { signal: controller.signal })
    await tick(5)
    controller.abort()
    expect((await pending).error?.kind).toBe('cancelled')
  })

  it('S6.3 after the caller stops, the deadline timer is dropped instead of holding the process for the budget', async () => {
    // The policy's own timer, found by its delay: counting the process's timers would count
    // other test files' too.
    const started = vi.spyOn(globalThis, 'setTimeout')
    const cleared = vi.spyOn(globalThis, 'clearTimeout')
    try {
      const root = await setup(slowTool(() => new Promise(() => {}), 60_000))
      const controller = new AbortController()
      const pending = root.tools.execute({ name: 'slow', arguments: {} }, { signal: controller.signal })
      await tick(5)
      const deadline = started.mock.calls.findIndex(([, ms]) => ms === 60_000)
      expect(deadline).toBeGreaterThanOrEqual(0)
      const timer = started.mock.results[deadline]!.value as NodeJS.Timeout
      expect(cleared).not.toHaveBeenCalledWith(timer)
      controller.abort()
      expect((await pending).error?.kind).toBe('cancelled')
      expect(cleared).toHaveBeenCalledWith(timer)
    } finally {
      started.mockRestore()
      cleared.mockRestore()
    }
  })

  it('S2 a body that finishes in time is untouched and its timer does not fire later', async () => {
    let signal: AbortSignal | undefined
    const root = await setup(slowTool(async (exec) => ((signal = exec.signal), 'done'), 30))
    const result = await root.tools.execute({ name: 'slow', arguments: {} })
    expect(result).toMatchObject({ isError: false, value: 'done' })
    await tick(60)
    expect(signal!.aborted).toBe(false)
  })

  it('S2 a tool without timeoutMs has no deadline unless the plugin sets a default', async () => {
    const waits = slowTool(async () => (await tick(40), 'late'))
    expect((await (await setup(waits)).tools.execute({ name: 'slow', arguments: {} })).value).toBe('late')
    const limited = await setup(waits, { defaultTimeoutMs: 10 })
    expect((await limited.tools.execute({ name: 'slow', arguments: {} })).error?.kind).toBe('timeout')
  })

  it('S2 the tool budget wins over the default', async () => {
    const root = await setup(slowTool(async () => (await tick(30), 'ok'), 200), { defaultTimeoutMs: 5 })
    expect((await root.tools.execute({ name: 'slow', arguments: {} })).value).toBe('ok')
  })

  it('S2 a body error before the deadline is a normal failure, not a timeout', async () => {
    const root = await setup(slowTool(async () => { throw new Error('real failure') }, 100))
    const result = await root.tools.execute({ name: 'slow', arguments: {} })
    expect(result.error?.kind).toBe('failed')
    expect(text(result.content)).toContain('real failure')
  })
})
