/**
 * How a run ends when the script does not end it (SPEC S9.7): the wall clock, and the caller's
 * cancel, each aborting the calls in flight and naming them.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { calibratedDeadline, expectHealthy, hangingDispatch, run, until } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

describe('endings: the wall clock and the caller\'s cancel', () => {
  it('ends a never-settling await at the wall clock with status timeout', async () => {
    const { result } = await run('await new Promise(() => {})', { limits: { wallClockMs: 300 } }, pool)
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toContain('wall-clock limit of 300 ms (wallClockMs)')
    await expectHealthy(pool)
  })

  it("S9.7 a wall-clock timeout names what used the time: running the script's code", async () => {
    // The spin must be most of the deadline: a run's start waits for this machine (at load 21 a
    // 300 ms deadline passed before the loop began), so the deadline is 6 times what a run that
    // returns at once took just now, and at least 300 ms.
    const { result: calibration } = await run('return 1', {}, pool)
    const wallClockMs = Math.max(300, Math.ceil(6 * calibration.durationMs))
    const { result } = await run('while (true) {}', { limits: { wallClockMs, cpuTimeMs: 60_000 }, checkMs: 40 }, pool)
    expect(result.status).toBe('timeout')
    // The whole deadline the caller set: the time left plus what checking used (40).
    expect(result.error?.message).toContain(`within the wall-clock limit of ${wallClockMs + 40} ms (wallClockMs)`)
    const account = /^The script did not finish within the wall-clock limit of \d+ ms \(wallClockMs\); most of it went to running the script's code \(type-checking and compiling 40 ms, running code (\d+) ms \(CPU (\d+) ms\), waiting on tool calls 0 ms, waiting on nothing \d+ ms(?:, waiting for a fresh isolate \d+ ms)?\)\. (.*)$/.exec(result.error?.message ?? '')
    expect(account, result.error?.message).not.toBeNull()
    // The advice follows the CPU the loop got: a loaded machine may give it less than half its time.
    const [runningMs, cpuMs] = [Number(account![1]), Number(account![2])]
    expect(account![3]).toMatch(cpuMs * 2 < runningMs ? /^Its code had a core for only \d+ ms of that: the machine was busy/ : /^Look for an endless loop/)
  })

  it("S9.7 a wall-clock timeout names what used the time: running the script's code, resumed by a tool call's answer", async () => {
    // The spin must be most of the deadline even when a loaded machine delays the answer.
    const wallClockMs = await calibratedDeadline('await tools.noop({}); return 1', pool)
    const { result } = await run('await tools.noop({}); while (true) {}', { limits: { wallClockMs, cpuTimeMs: 60_000 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 1 })
    expect(result.error?.message).toMatch(/most of it went to running the script's code \(.*running code [1-9]\d* ms/)
    await expectHealthy(pool)
  })

  it('S9.7 a wall-clock timeout names what used the time: waiting on tool calls, which are still running, and that they may have taken effect', async () => {
    // Long enough that the calls' waiting is most of it even when a loaded machine makes the start slow.
    const wallClockMs = await calibratedDeadline('await tools.noop({}); return 1', pool)
    const { result } = await run('await tools.noop({}); await Promise.all([tools.hang({}), tools.hang({}), tools.slow({})])', {
      limits: { wallClockMs },
      dispatch: hangingDispatch((call) => (call.name === 'noop' ? Promise.resolve({ ok: true, valueJson: 'null' }) : undefined)).dispatch,
    }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 4 })
    expect(result.error?.message).toMatch(/most of it went to waiting on tool calls \(3 calls: hang ×2, slow still running\) .*\. The calls still running were stopped at the deadline and may or may not have taken effect: check before making them again\. If a tool is slow or hangs, ask it for less or raise timeoutMs; otherwise make fewer calls/)
  })

  it('S9.7 a wall-clock timeout names what used the time: waiting on nothing', async () => {
    const { result } = await run('await new Promise(() => {})', { limits: { wallClockMs: await calibratedDeadline('return 1', pool) } }, pool)
    expect(result.error?.message).toMatch(/most of it went to waiting on nothing: no code ran and no tool call was pending .*a promise that never settles/)
  })

  it('aborts in-flight dispatch signals when the wall clock expires', async () => {
    const { signals, dispatch } = hangingDispatch()
    const { result } = await run('await tools.hang({})', { limits: { wallClockMs: 200 }, dispatch })
    expect(result.status).toBe('timeout')
    expect(signals).toHaveLength(1)
    expect(signals[0]!.aborted).toBe(true)
    // The deadline's own account names it (deadline.spent.toolsRunning), not stoppedCalls.
    expect(result).not.toHaveProperty('stoppedCalls')
  })

  it('cancels through the signal with status cancelled and aborts in-flight calls', async () => {
    const controller = new AbortController()
    const { signals, dispatch } = hangingDispatch()
    const pending = run('await tools.hang({})', { signal: controller.signal, dispatch })
    await until(() => signals.length === 1)
    controller.abort()
    const { result } = await pending
    expect(result.status).toBe('cancelled')
    expect(result.error?.name).toBe('CancelledError')
    expect(signals[0]!.aborted).toBe(true)
    // Named for the host to word (withStoppedCalls): the call may have taken effect.
    expect(result.stoppedCalls).toEqual(['hang'])
    await expectHealthy(pool)
  })

  it('returns cancelled at once for an already aborted signal, without calling dispatch', async () => {
    const { result, calls } = await run('await tools.noop({})', { signal: AbortSignal.abort() })
    expect(result.status).toBe('cancelled')
    expect(calls).toHaveLength(0)
  })

  it('never dispatches a call made after the script returned', async () => {
    const { result, calls } = await run('tools.slow({ first: true }).then(() => tools.echo({ late: true })); return 1', {}, pool)
    expect(result).toMatchObject({ status: 'ok', value: 1 })
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(calls.map((call) => call.argsJson)).toEqual(['{"first":true}'])
  })

  it('aborts fire-and-forget calls still pending when the run ends after the script returned, and discards their results', async () => {
    // The run waits for a call the script did not await until its deadline (issue 11): a short one
    // (not the default 30 s), far from what an unpooled run takes just now, so the script returns first.
    const wallClockMs = await calibratedDeadline('return 1', undefined)
    const signals: AbortSignal[] = []
    let resolveLate!: (outcome: { ok: true; valueJson: string }) => void
    const { result } = await run('tools.hang({ forgotten: true }); return "returned"', {
      limits: { wallClockMs },
      dispatch: (call) => {
        signals.push(call.signal)
        return new Promise((resolve) => (resolveLate = resolve))
      },
    })
    expect(result).toMatchObject({ status: 'ok', value: 'returned', toolCalls: 1 })
    expect(signals[0]!.aborted).toBe(true)
    resolveLate({ ok: true, valueJson: '"late"' }) // must be a no-op on a disposed isolate
    await new Promise((resolve) => setTimeout(resolve, 20))
    await expectHealthy(pool)
  })
})
