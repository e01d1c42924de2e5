/**
 * The tool-call queue of one isolate run (SPEC S9.2, S9.3; issue 12): how a dispatcher answers a
 * call, when a call's abort signal exists, and that a call made while its predecessor's answer is
 * being settled (a sequential step run at once) goes out without waiting for the queue.
 */
import { describe, expect, it } from 'vitest'
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
    limits: resolveRunLimits({ maxCallsInFlight }),
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
})
