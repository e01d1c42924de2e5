/**
 * One session cannot stall another (SPEC S9.1, S9.7; issue 16: "the host only routes"): a
 * script's type-check and its run are bounded by the run's deadline, enforced from the host, in
 * both isolation modes. Order and outcome only, never durations.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import { recursiveTypesScript, SPIN_SCRIPT } from '../../fixtures/attack-scripts.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

describe.each(['process', 'inline'] as const)('Ptc with isolation %s', (isolation) => {
  let root: Context
  let dispose: () => unknown
  beforeAll(async () => {
    root = await createRoot()
    const fiber = root.plugin(Ptc, { isolation, poolSize: 1, checkers: 2 })
    await fiber
    dispose = () => fiber.dispose()
    await usePlugin(root, (ctx) => void ctx.tools.register(echoTool()))
    await root.ptc.prewarm()
  }, 60_000)
  afterAll(() => dispose())

  it("S9.1 another session is answered while a pathological type-check runs, and the check is stopped at the run's deadline", async () => {
    const order: string[] = []
    const attack = root.ptc.run(recursiveTypesScript(), { timeoutMs: 3_000, agent: 'attacker' }).finally(() => order.push('attack ended'))
    const other = await root.ptc.run('const r = await tools.echo({ text: "hi" }); return r.text', { agent: 'other' })
    order.push('other answered')
    const attacked = await attack
    expect(other).toMatchObject({ status: 'ok', value: 'hi', toolCalls: 1 })
    expect(attacked).toMatchObject({ status: 'timeout', toolCalls: 0, error: { name: 'TimeoutError' } })
    expect(attacked.error?.message).toContain("Type-checking the script used up the run's 3000 ms deadline")
    expect(order).toEqual(['other answered', 'attack ended'])
  }, 60_000)

  it('S9.7 while (true) ends with status timeout, and the message says the time went to the CPU', async () => {
    const result = await root.ptc.run(SPIN_SCRIPT, { timeoutMs: 1_000 })
    expect(result).toMatchObject({ status: 'timeout', error: { name: 'TimeoutError' } })
    expect(result.error?.message).toContain('within the wall-clock limit of 1000 ms (wallClockMs); most of it went to computing in the script (CPU)')
  }, 60_000)
})

describe('Ptc with process isolation: the worker dies mid-run', () => {
  let root: Context
  let dispose: () => unknown
  const dispatched: string[] = []
  beforeAll(async () => {
    root = await createRoot()
    const fiber = root.plugin(Ptc, { poolSize: 1, checkers: 1 })
    await fiber
    dispose = () => fiber.dispose()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tool/ptc-dispatch', (dispatch) => void dispatched.push(dispatch.name))
    })
    await root.ptc.prewarm()
  }, 60_000)
  afterAll(() => dispose())

  it('S9.1 toolCalls is right after a kill -9 of the isolate worker mid-run', async () => {
    const pending = root.ptc.run('for (;;) await tools.echo({ text: "again" })', { timeoutMs: 60_000 })
    while (dispatched.length < 20) await new Promise((resolve) => setTimeout(resolve, 5))
    process.kill(root.ptc._supervisor!.workerPid!, 'SIGKILL')
    const result = await pending
    expect(result).toMatchObject({ status: 'error', error: { name: 'WorkerCrashError' } })
    // Every call the bridge dispatched, counted on the host: none lost with the worker.
    expect(result.toolCalls).toBe(dispatched.length)
  }, 60_000)
})
