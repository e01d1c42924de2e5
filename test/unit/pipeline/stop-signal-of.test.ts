/**
 * `stopSignalOf` (SPEC S6.3, S8.2): what ends the pipeline's waits for an execution, read by
 * approval responders and the journal from a `ToolExecution` a listener could have wrapped. It
 * never throws, whatever the request holds.
 */
import { describe, expect, it } from 'vitest'
import { Execution, NEVER_ABORTED, stopSignalOf } from '../../../src/pipeline/execution.ts'

const execution = (stopSignal: AbortSignal) =>
  new Execution({ callId: 'c1', name: 'echo', args: {}, agent: undefined, parentToken: undefined, callerSignal: NEVER_ABORTED, stopSignal, timeoutMs: undefined })

describe('stopSignalOf (S6.3)', () => {
  it("S6.3 a pipeline call's stop is the caller's joined with the host's; a hand-made request's is its callerSignal", () => {
    const host = new AbortController()
    expect(stopSignalOf(execution(host.signal))).toBe(host.signal)
    const caller = new AbortController()
    expect(stopSignalOf({ callerSignal: caller.signal })).toBe(caller.signal)
    expect(stopSignalOf({ callerSignal: 'no' })).toBeUndefined()
    expect(stopSignalOf(undefined)).toBeUndefined()
  })

  it('S6.3 S8.2 never throws: a throwing callerSignal getter, a Proxy whose traps throw, a Proxy of an Execution', () => {
    const getter = Object.defineProperty({}, 'callerSignal', {
      get() {
        throw new Error('boom')
      },
    })
    const hostile = new Proxy({}, {
      get() {
        throw new Error('get trap')
      },
      getPrototypeOf() {
        throw new Error('getPrototypeOf trap')
      },
    })
    const host = new AbortController()
    const wrapped = new Proxy(execution(host.signal), {})
    for (const request of [getter, hostile, wrapped]) expect(() => stopSignalOf(request)).not.toThrow()
    expect(stopSignalOf(getter)).toBeUndefined()
    // A Proxy of a pipeline call has no private fields: its callerSignal is the stop that can be read.
    expect(stopSignalOf(wrapped)).toBe(NEVER_ABORTED)
  })
})
