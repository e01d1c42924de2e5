/**
 * The script's calls on their way to the host (runtime/call-outbox.ts, issue 12, S9.1): a call
 * made alone crosses at once; the calls a synchronous stretch makes while others are waiting cross
 * together at its end, in order, at most MAX_CALLS_A_CROSSING at a time; a crossing the host
 * refuses rejects each of its calls.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createCallOutbox, MAX_CALLS_A_CROSSING } from '../../runtime/call-outbox.ts'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { expectHealthy, run } from './harness.ts'

/** An outbox whose crossings and refusals are recorded. */
function recordedOutbox(hostCall?: (...calls: (number | string)[]) => void) {
  const crossings: (number | string)[][] = []
  const refused: number[] = []
  const outbox = createCallOutbox(
    hostCall ??
      ((...calls) => {
        crossings.push(calls)
      }),
    (callId) => refused.push(callId),
  )
  return { outbox, crossings, refused }
}

describe('the call outbox (issue 12, S9.1)', () => {
  it('sends a call made alone at once, before push returns', () => {
    const { outbox, crossings } = recordedOutbox()
    outbox.push(1, 'read', '{}', true)
    expect(crossings).toEqual([[1, 'read', '{}']])
  })

  it('sends the calls of one synchronous stretch together, in order, one microtask later', async () => {
    const { outbox, crossings } = recordedOutbox()
    outbox.push(1, 'a', '{"i":1}', true)
    outbox.push(2, 'b', '{"i":2}', false)
    outbox.push(3, 'a', '{"i":3}', false)
    // A call made alone while others are queued waits with them (no overtaking).
    outbox.push(4, 'c', '{}', true)
    expect(crossings).toEqual([[1, 'a', '{"i":1}']])
    await undefined
    await undefined
    expect(crossings).toEqual([
      [1, 'a', '{"i":1}'],
      [2, 'b', '{"i":2}', 3, 'a', '{"i":3}', 4, 'c', '{}'],
    ])
  })

  it(`sends at once when ${MAX_CALLS_A_CROSSING} calls are queued, without waiting for the stretch to end`, () => {
    const { outbox, crossings } = recordedOutbox()
    for (let callId = 1; callId <= MAX_CALLS_A_CROSSING + 1; callId++) outbox.push(callId, 'a', '{}', false)
    expect(crossings).toHaveLength(1)
    expect(crossings[0]).toHaveLength(MAX_CALLS_A_CROSSING * 3)
    expect(crossings[0]!.at(-3)).toBe(MAX_CALLS_A_CROSSING)
  })

  it('flush sends the queued calls now (the runtime flushes before a log line and the ending), and is a no-op when none wait', async () => {
    const { outbox, crossings } = recordedOutbox()
    outbox.flush()
    outbox.push(7, 'a', '{}', false)
    outbox.flush()
    expect(crossings).toEqual([[7, 'a', '{}']])
    await undefined
    await undefined
    expect(crossings).toHaveLength(1)
  })

  it('refuses every call of a crossing the host threw for, and only those', async () => {
    let calls = 0
    const { outbox, refused } = recordedOutbox(() => {
      calls++
      if (calls > 1) throw new Error('gone')
    })
    outbox.push(1, 'a', '{}', true)
    outbox.push(2, 'a', '{}', false)
    outbox.push(3, 'a', '{}', false)
    await undefined
    await undefined
    expect(refused).toEqual([2, 3])
    outbox.push(4, 'a', '{}', true)
    expect(refused).toEqual([2, 3, 4])
  })
})

describe('calls from a script through the outbox (issue 12, S9.1)', () => {
  const pool = new IsolatePool({ size: 2 })
  afterAll(() => pool.dispose())

  it(`answers every call of a burst larger than one crossing (${MAX_CALLS_A_CROSSING * 2 + 44} calls), each with its own value`, async () => {
    const count = MAX_CALLS_A_CROSSING * 2 + 44
    const { result, calls } = await run(`const rs = await Promise.all(Array.from({ length: ${count} }, (_, i) => tools.echo({ i })))\nreturn rs.every((r, i) => r.i === i) && rs.length`, {}, pool)
    expect(result).toMatchObject({ status: 'ok', value: count, toolCalls: count })
    expect(calls.map((call) => JSON.parse(call.argsJson).i)).toEqual(Array.from({ length: count }, (_, i) => i))
  })

  it('is not diverted by index setters or a length setter a script puts on Array.prototype and Object.prototype', async () => {
    const js = `let seen = 0
for (const proto of [Array.prototype, Object.prototype]) {
  for (const key of ['0', '1', '2', '3', '4', '5', 'length']) {
    try { Object.defineProperty(proto, key, { set() { seen++ }, get() { return 'hijacked' }, configurable: true }) } catch {}
  }
}
const rs = await Promise.all([tools.echo({ a: 1 }), tools.echo({ b: 2 }), tools.echo({ c: 3 })])
return { rs: JSON.stringify(rs), seen }`
    const { result, calls } = await run(js, {}, pool)
    expect(result).toMatchObject({ status: 'ok', value: { rs: '[{"a":1},{"b":2},{"c":3}]', seen: 0 } })
    expect(calls.map((call) => [call.name, call.argsJson])).toEqual([
      ['echo', '{"a":1}'],
      ['echo', '{"b":2}'],
      ['echo', '{"c":3}'],
    ])
    await expectHealthy(pool)
  })

  it('starts a call made alone before the script goes on: an endless loop right after it still leaves it dispatched', async () => {
    const { result, calls } = await run('tools.echo({ first: true }); for (;;) {}', { limits: { cpuTimeMs: 200 } }, pool)
    expect(result.status).toBe('timeout')
    expect(calls.map((call) => call.argsJson)).toEqual(['{"first":true}'])
    await expectHealthy(pool)
  })
})
