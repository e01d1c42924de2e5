/**
 * The script's calls on their way to the host (runtime/call-outbox.ts, issue 12, S9.1): a call
 * made alone crosses at once; the calls a synchronous stretch makes while others are waiting cross
 * together at its end, in order, at most MAX_CALLS_A_CROSSING at a time; a crossing the host
 * refuses rejects each of its calls.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createCallOutbox, MAX_CALLS_A_CROSSING } from '../../runtime/call-outbox.ts'
import { IsolatePool, prepareIsolate, type IsolateHandlers, type PreparedIsolate } from '../../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../../src/ptc/isolate/isolate-run.ts'
import { defaultDispatch, expectHealthy, run, TOOL_NAMES } from './harness.ts'

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

  it('tries a failed crossing again on a fresh stack, then refuses its calls if the host keeps refusing', async () => {
    let failures = 1
    const crossings: (number | string)[][] = []
    const flaky = recordedOutbox((...calls) => {
      if (failures-- > 0) throw new RangeError('Maximum call stack size exceeded')
      crossings.push(calls)
    })
    flaky.outbox.push(1, 'a', '{}', false)
    for (let turn = 0; turn < 6; turn++) await undefined
    expect(crossings).toEqual([[1, 'a', '{}']])
    expect(flaky.refused).toEqual([])

    const gone = recordedOutbox(() => {
      throw new Error('gone')
    })
    gone.outbox.push(2, 'a', '{}', false)
    gone.outbox.push(3, 'a', '{}', false)
    for (let turn = 0; turn < 12; turn++) await undefined
    expect(gone.refused).toEqual([2, 3])
  })

  it(`S9.1 crossings that fail deep in a recursion (a full outbox, a log line) are not counted: the calls cross on a fresh stack, none refused`, async () => {
    // Every crossing made inside push or flush fails, as at the stack limit; only the queued
    // microtask's, on a fresh stack, succeeds.
    let deep = true
    const crossings: (number | string)[][] = []
    const { outbox, refused } = recordedOutbox((...calls) => {
      if (deep) throw new RangeError('Maximum call stack size exceeded')
      crossings.push(calls)
    })
    for (let callId = 1; callId <= MAX_CALLS_A_CROSSING; callId++) outbox.push(callId, 'a', '{}', false)
    // Five failures in a row, more than the retries a host that went away gets.
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(() => outbox.push(1_000 + attempt, 'a', '{}', false)).toThrow(RangeError)
      outbox.flush()
    }
    deep = false
    for (let turn = 0; turn < 4; turn++) await undefined
    expect(refused).toEqual([])
    expect(crossings).toHaveLength(1)
    // The calls whose push threw were neither sent nor queued.
    expect(crossings[0]!.filter((_, index) => index % 3 === 0)).toEqual(Array.from({ length: MAX_CALLS_A_CROSSING }, (_, i) => i + 1))
  })

  it('a call made alone whose crossing throws is neither sent nor queued: push throws and the outbox is as before', async () => {
    const crossings: (number | string)[][] = []
    let fail = true
    const { outbox } = recordedOutbox((...calls) => {
      if (fail) throw new RangeError('Maximum call stack size exceeded')
      crossings.push(calls)
    })
    expect(() => outbox.push(1, 'a', '{}', true)).toThrow(RangeError)
    fail = false
    outbox.push(2, 'a', '{}', true)
    for (let turn = 0; turn < 4; turn++) await undefined
    expect(crossings).toEqual([[2, 'a', '{}']])
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

  it.each([86, MAX_CALLS_A_CROSSING + 86])(
    'S9.1 a crossing of 85 calls, 255 arguments, which isolated-vm 7.0.1 drops, still reaches the host: a burst of %i calls is answered',
    async (count) => {
      // The first call crosses alone; the rest cross 128 at a time, and the last crossing holds 85.
      const { result } = await run(`const rs = await Promise.all(Array.from({ length: ${count} }, (_, i) => tools.echo({ i })))\nreturn rs.every((r, i) => r.i === i) && rs.length`, { limits: { wallClockMs: 5_000 } }, pool)
      expect(result).toMatchObject({ status: 'ok', value: count, toolCalls: count })
    },
  )

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

  it('S9.1 a call made from the bottom of a deep recursion while another waits is made once and answered; none stays queued', async () => {
    const js = `const h = tools.slow({})
let made = null, at = -1, threw = 0
function f(d) { try { f(d + 1) } catch {} if (made === null) { try { made = tools.echo({ d }); at = d } catch { threw++ } } }
f(0)
const v = await made
await h
return { same: v.d === at, threw }`
    const { result, calls } = await run(js, { limits: { wallClockMs: 20_000 } }, pool)
    expect(result).toMatchObject({ status: 'ok', value: { same: true } })
    expect(calls.filter((call) => call.name === 'echo')).toHaveLength(1)
  })

  it('S9.1 calls that threw at the stack limit are not counted as waiting: a later call made alone still crosses at once', async () => {
    const js = `const ps = []
for (let i = 0; i < 128; i++) ps.push(tools.echo({ i }))
let tries = 0
function f(d) { try { f(d + 1) } catch {} if (tries < 400) { tries++; try { tools.noop({ deep: d }) } catch {} } }
f(0)
await Promise.all(ps)
for (let i = 0; i < 3; i++) await tools.noop({ i })
tools.echo({ after: true })
for (;;) {}`
    const { result, calls } = await run(js, { limits: { cpuTimeMs: 1_500, wallClockMs: 20_000 } }, pool)
    expect(result.status).toBe('timeout')
    expect(calls.at(-1)?.argsJson).toBe('{"after":true}')
    await expectHealthy(pool)
  })

  it('S9.1 the host sees calls, log lines and the ending in the order the script made them', async () => {
    const order = async (js: string) => {
      const seen: string[] = []
      const tracing = {
        memoryMb: 128,
        take: async () => traceHandlers(await prepareIsolate({ memoryMb: 128 }), seen),
      } as unknown as IsolatePool
      await runInIsolate({ js, toolNames: TOOL_NAMES, dispatch: defaultDispatch, limits: { wallClockMs: 500 } }, tracing)
      return seen
    }
    expect(await order(`tools.hang({ n: 1 }); tools.echo({ n: 2 }); console.log('L1'); tools.echo({ n: 3 }); return 1`)).toEqual(['call {"n":1}', 'call {"n":2}', 'log L1', 'call {"n":3}', 'finish'])
    expect(await order(`Promise.resolve().then(() => { tools.hang({ a: 1 }); tools.echo({ b: 2 }) }); return 1`)).toEqual(['call {"a":1}', 'call {"b":2}', 'finish'])
  })

  it('starts a call made alone before the script goes on: an endless loop right after it still leaves it dispatched', async () => {
    const { result, calls } = await run('tools.echo({ first: true }); for (;;) {}', { limits: { cpuTimeMs: 200 } }, pool)
    expect(result.status).toBe('timeout')
    expect(calls.map((call) => call.argsJson)).toEqual(['{"first":true}'])
    await expectHealthy(pool)
  })
})

/** `prepared` with its run's handlers wrapped so every call, log line and ending is recorded in `seen`, in order. */
function traceHandlers(prepared: PreparedIsolate, seen: string[]): PreparedIsolate {
  let inner: IsolateHandlers | undefined
  Object.defineProperty(prepared, 'handlers', {
    configurable: true,
    get: () => inner,
    set(handlers: IsolateHandlers | undefined) {
      inner = handlers && {
        call: (callId, name, argsJson) => {
          seen.push(`call ${argsJson}`)
          handlers.call(callId, name, argsJson)
        },
        log: (level, text) => {
          seen.push(`log ${text}`)
          handlers.log(level, text)
        },
        finish: (...ending) => {
          seen.push('finish')
          handlers.finish(...ending)
        },
      }
    },
  })
  return prepared
}
