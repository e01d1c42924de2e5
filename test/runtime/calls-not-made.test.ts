/**
 * A run's warnings tell calls that were never made from calls that may have taken effect (issue
 * 11, S9.1): at the deadline, a call still queued for a free slot (maxCallsInFlight, or
 * maxCrossingBytes for the arguments in flight) was never
 * handed to the host, so it is "not made"; only a call that was running "may or may not have
 * taken effect". And a rejection whose message ends a sentence is not given a second period.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../../src/ptc/isolate/isolate-run.ts'
import { expectHealthy, hangingDispatch, run } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

describe('calls not made are said so (issue 11, S9.1)', () => {
  it('S9.1 at the deadline, calls still queued for a free slot are not made; only the running ones may have taken effect', async () => {
    const { dispatch } = hangingDispatch()
    const { result, calls } = await run('for (let i = 0; i < 5; i++) tools.hang({ i })\nreturn "x"', { limits: { maxCallsInFlight: 2, wallClockMs: 400 }, dispatch }, pool)
    expect(calls.map((call) => call.argsJson)).toEqual(['{"i":0}', '{"i":1}'])
    expect(result).toMatchObject({ status: 'ok', value: 'x', toolCalls: 2 })
    expect(result.warnings?.[0]?.message).toContain(
      "The run waited for them: the run's wall-clock limit cancelled 2 before they finished (each may or may not have taken effect), 3 were still queued for a free slot (maxCallsInFlight, or maxCrossingBytes for the arguments in flight) and were not made.",
    )
    await expectHealthy(pool)
  })

  it('S9.1 a call queued because the arguments in flight would pass maxCrossingBytes is not made either', async () => {
    const { dispatch } = hangingDispatch()
    const js = 'const big = "x".repeat(600)\nfor (let i = 0; i < 3; i++) tools.hang({ i, big })\nreturn "z"'
    const { result } = await run(js, { limits: { maxCrossingBytes: 1_000, wallClockMs: 400 }, dispatch }, pool)
    expect(result).toMatchObject({ status: 'ok', value: 'z', toolCalls: 1 })
    expect(result.warnings?.[0]?.message).toContain("the run's wall-clock limit cancelled 1 before it finished (it may or may not have taken effect), 2 were still queued for a free slot (maxCallsInFlight, or maxCrossingBytes for the arguments in flight) and were not made.")
  })

  it('S9.1 a single call still queued at the deadline is said to be not made', async () => {
    const { dispatch } = hangingDispatch()
    const js = 'const first = tools.hang({ a: 1 })\nfirst.then(() => {})\ntools.hang({ b: 2 })\nreturn "y"'
    const { result } = await run(js, { limits: { maxCallsInFlight: 1, wallClockMs: 400 }, dispatch }, pool)
    expect(result).toMatchObject({ status: 'ok', value: 'y', toolCalls: 1 })
    const unawaited = result.warnings?.find((warning) => warning.kind === 'unawaited-calls')
    expect(unawaited?.message).toContain(
      'hang {"b":2}. The run waited for it: the run\'s wall-clock limit came while it was still queued for a free slot (maxCallsInFlight, or maxCrossingBytes for the arguments in flight), so it was not made.',
    )
    const abandoned = result.warnings?.find((warning) => warning.kind === 'abandoned-calls')
    expect(abandoned?.message).toContain("the run's wall-clock limit cancelled it before it finished (it may or may not have taken effect)")
  })

  it('S9.3 an unhandled rejection whose message ends with a period gets no second one', async () => {
    const { result } = await run('await tools.echo({})\nPromise.reject(new Error("the disk is full."))\nawait tools.echo({})\nreturn 1', {}, pool)
    expect(result.warnings?.[0]?.message).toMatch(/^Unhandled promise rejection: Error: the disk is full\. Nothing awaited/)
  })

  it('S9.1 a run cancelled while it waits for its isolate ends cancelled and makes no call', async () => {
    let calls = 0
    const controller = new AbortController()
    // Not the pool's memory limit: its isolate is made for it, and the cancel comes meanwhile.
    const ending = runInIsolate({ js: 'await tools.write_file({})\nreturn "ran"', toolNames: ['write_file'], limits: { memoryMb: 32 }, signal: controller.signal, dispatch: async () => (calls++, { ok: true, valueJson: 'null' }) }, pool)
    controller.abort()
    expect(await ending).toMatchObject({ status: 'cancelled', toolCalls: 0 })
    expect(calls).toBe(0)
    await expectHealthy(pool)
  })
})
