/**
 * The tool-call queue of one isolate run (SPEC S9.2, S9.3; issue 12): how a dispatcher answers a
 * call, when a call's abort signal exists, and that a call made while its predecessor's answer is
 * being settled (a sequential step run at once) goes out without waiting for the queue.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { IsolateToolCall, IsolateToolOutcome } from '../../../src/ptc/isolate/isolate-contract.ts'
import { resolveRunLimits } from '../../../src/ptc/isolate/run-limits.ts'
import { ToolCallQueue } from '../../../src/ptc/isolate/tool-call-queue.ts'

type Settled = [callId: number, ok: boolean, text: string]

/** A queue whose dispatcher keeps each call and returns `returns(call)`; what it settles is in `settled`. */
function queue(returns: (call: IsolateToolCall) => Promise<IsolateToolOutcome> | void = () => undefined, maxCallsInFlight = 8) {
  const calls: IsolateToolCall[] = []
  const settled: Settled[] = []
  let onSettle = (_settled: Settled): void => {}
  const tools = new ToolCallQueue({
    runId: 'run',
    toolNames: ['noop'],
    limits: resolveRunLimits({ maxCallsInFlight, maxToolCalls: 100_000 }),
    dispatch: (call) => {
      calls.push(call)
      return returns(call)
    },
    settle: (callId, ok, text) => {
      settled.push([callId, ok, text])
      onSettle([callId, ok, text])
    },
  })
  return { tools, calls, settled, afterSettle: (fn: (settled: Settled) => void) => (onSettle = fn) }
}

describe('tool-call queue (issue 12)', () => {
  afterEach(() => vi.restoreAllMocks())

  it('S9.2 a dispatch that returns nothing answers through call.answer; only the first answer counts', () => {
    const { tools, calls, settled } = queue()
    tools.accept(1, 'noop', '{"i":1}')
    expect(calls.map((call) => call.pairingId)).toEqual(['run:1'])
    calls[0]!.answer({ ok: true, valueJson: '{"i":1}' })
    calls[0]!.answer({ ok: false, message: 'a second answer' })
    expect(settled).toEqual([[1, true, '{"i":1}']])
    expect(tools.running).toEqual([])
  })

  it('S9.3 a dispatch that throws, or whose promise rejects, fails the call with the error\'s message', async () => {
    const { tools, settled } = queue((call) => {
      if (call.name === 'noop' && call.argsJson === '1') throw new Error('thrown')
      return Promise.reject(new Error('rejected'))
    })
    tools.accept(1, 'noop', '1')
    tools.accept(2, 'noop', '2')
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toEqual([
      [1, false, 'the tool failed: thrown'],
      [2, false, 'the tool failed: rejected'],
    ])
  })

  it('S9.2 a call\'s abort signal aborts when the run closes, read before or after; calls still running are listed in dispatch order', () => {
    const { tools, calls } = queue()
    for (const callId of [1, 2, 3]) tools.accept(callId, 'noop', '{}')
    const early = calls[0]!.signal
    expect(early.aborted).toBe(false)
    calls[1]!.answer({ ok: true, valueJson: 'null' })
    expect(tools.running).toEqual(['noop', 'noop'])
    const reason = new Error('run ended (ok)')
    expect(tools.close(reason)).toEqual([])
    expect(early.aborted).toBe(true)
    expect(calls[2]!.signal.aborted).toBe(true)
    expect(calls[2]!.signal.reason).toBe(reason)
    // Answers after the run closed are dropped.
    calls[2]!.answer({ ok: true, valueJson: '3' })
  })

  it('S9.2 with one call in flight at most, a call made while the previous answer is settled goes out at once', () => {
    const { tools, calls, settled, afterSettle } = queue(undefined, 1)
    const dispatchedDuringSettle: number[] = []
    afterSettle(([callId]) => {
      // The script's next step runs here (a sequential step run at once) and makes the next call.
      if (callId < 3) tools.accept(callId + 1, 'noop', '{}')
      dispatchedDuringSettle.push(calls.length)
    })
    tools.accept(1, 'noop', '{}')
    calls[0]!.answer({ ok: true, valueJson: '1' })
    calls[1]!.answer({ ok: true, valueJson: '2' })
    calls[2]!.answer({ ok: true, valueJson: '3' })
    expect(dispatchedDuringSettle).toEqual([2, 3, 3])
    expect(settled.map(([callId]) => callId)).toEqual([1, 2, 3])
  })

  it('S9.2 calls past maxCallsInFlight wait in the queue and go out as earlier ones finish; the run\'s end drops them as not made', () => {
    const { tools, calls } = queue(undefined, 2)
    for (const callId of [1, 2, 3, 4]) tools.accept(callId, 'noop', '{}')
    expect(calls.map((call) => call.pairingId)).toEqual(['run:1', 'run:2'])
    calls[0]!.answer({ ok: true, valueJson: '1' })
    expect(calls.map((call) => call.pairingId)).toEqual(['run:1', 'run:2', 'run:3'])
    expect(tools.close(new Error('run ended (timeout)'))).toEqual([4])
  })

  it('S9.2 a run\'s end aborts every call in flight, also when one answers from its abort listener', () => {
    const { tools, calls } = queue((call) => void call.signal.addEventListener('abort', () => call.answer({ ok: false, message: 'aborted' })))
    for (const callId of [1, 2, 3]) tools.accept(callId, 'noop', '{}')
    tools.close(new Error('run ended (timeout)'))
    expect(calls.map((call) => call.signal.aborted)).toEqual([true, true, true])
  })

  it('S9.3 a dispatcher that throws at once fails each of thousands of queued calls, without a stack frame a call', async () => {
    let release!: () => void
    const { tools, settled } = queue((call) => {
      if (call.pairingId === 'run:1') return new Promise((resolve) => (release = () => resolve({ ok: true, valueJson: '1' })))
      throw new Error('sync')
    }, 1)
    const count = 20_000
    for (let callId = 1; callId <= count; callId++) tools.accept(callId, 'noop', '{}')
    release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toHaveLength(count)
    expect(settled.at(-1)).toEqual([count, false, 'the tool failed: sync'])
    expect(tools.running).toEqual([])
  })

  it('S9.7 the time a step answered at once runs is not counted as time waiting on calls (the deadline message\'s toolWaitMs)', () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { tools, calls, afterSettle } = queue()
    afterSettle(([callId]) => {
      now += 1000 // The script's code runs for a second, then makes its next call.
      if (callId < 3) tools.accept(callId + 1, 'noop', '{}')
    })
    tools.accept(1, 'noop', '{}')
    for (const index of [0, 1, 2]) {
      now += 10 // Each call takes 10 ms.
      calls[index]!.answer({ ok: true, valueJson: 'null' })
    }
    expect(tools.busyMs).toBe(30)
  })

  it('S9.7 calls withdrawn after a step a limit ended leave the books: not dispatched, not running, and their time is not time on calls', () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { tools, calls } = queue()
    tools.accept(1, 'noop', '{}')
    now += 10
    calls[0]!.answer({ ok: true, valueJson: 'null' })
    for (const callId of [2, 3]) tools.accept(callId, 'noop', '{}') // made by the step, held by the worker
    now += 1000 // the step runs until a limit stops it
    tools.withdraw()
    expect(tools.running).toEqual([])
    expect(tools.dispatched).toBe(1)
    expect(tools.busyMs).toBe(10)
  })
})
