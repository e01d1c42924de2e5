import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { expectHealthy, hangingDispatch, run, until } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

describe('runInIsolate: results (S9.2)', () => {
  it('returns the parsed JSON of a top-level return after top-level await', async () => {
    const { result } = await run('const a = await tools.echo({ n: 1 }); return { a, sum: 1 + 2 }', {}, pool)
    expect(result).toMatchObject({ status: 'ok', value: { a: { n: 1 }, sum: 3 }, toolCalls: 1, logs: [] })
    expect(result.durationMs).toBeGreaterThan(0)
  })

  it('leaves value absent when the script returns undefined', async () => {
    const { result } = await run('await tools.noop({})', {}, pool)
    expect(result.status).toBe('ok')
    expect('value' in result).toBe(false)
  })

  it('reports an uncaught throw as status error with its name and message', async () => {
    const { result } = await run('await tools.noop({}); throw new RangeError("out of range")', {}, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'RangeError', message: 'out of range' }, toolCalls: 1 })
  })

  it('reports a thrown primitive readably', async () => {
    const { result } = await run('throw "plain string"', {}, pool)
    // It carries no stack, so no line: the message says how to get one.
    expect(result).toMatchObject({ status: 'error', error: { name: 'Error', message: 'plain string (not an Error, so no line is known: throw new Error(…) to get one)' } })
  })

  it('S9.3 reports a thrown plain object by its JSON, not as [object Object]', async () => {
    const { result } = await run('throw { code: 7, reason: "quota" }', {}, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'Error', message: 'a thrown non-Error value: {"code":7,"reason":"quota"} (not an Error, so no line is known: throw new Error(…) to get one)' } })
  })

  it('S9.3 an Error whose message is no string keeps its message, as the console writes it, and is not called a non-Error', async () => {
    const { result } = await run('const e = new Error("x"); e.message = { a: 1 }; throw e', {}, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'Error', message: '{"a":1}' } })
  })

  it('reports a syntax error as status error SyntaxError', async () => {
    const { result } = await run('return (', {}, pool)
    expect(result.status).toBe('error')
    expect(result.error?.name).toBe('SyntaxError')
    await expectHealthy(pool)
  })

  it('sends undefined arguments as {}', async () => {
    const { calls } = await run('return await tools.echo()', {}, pool)
    expect(calls.map((call) => call.argsJson)).toEqual(['{}'])
  })
})

describe('tools and ToolCallError (S9.1, S9.3)', () => {
  it('exposes exactly the visible tools on a frozen null-prototype object; reading any other name throws a ToolCallError naming the closest tools', async () => {
    const { result } = await run(
      `let read = 'no error'
      try { tools.ehco } catch (e) { read = e.name + ': ' + e.message }
      return { keys: Object.keys(tools), proto: Object.getPrototypeOf(tools), frozen: Object.isFrozen(tools),
        unknown: 'missing' in tools, toStringAbsent: !('toString' in tools), name: tools.echo.name, read }`,
      { toolNames: ['echo', 'noop'] },
    )
    expect(result.value).toEqual({
      keys: ['echo', 'noop'],
      proto: null,
      frozen: true,
      unknown: false,
      toStringAbsent: true,
      name: 'echo',
      read: "ToolCallError: There is no tool named 'ehco'. Did you mean 'echo'? The tools are: echo, noop.",
    })
  })

  it('rejects a failed call with a real ToolCallError exposing only name, toolName and message', async () => {
    const { result } = await run(
      `try { await tools.fail({}) } catch (e) {
        return { own: Object.keys(e), json: JSON.parse(JSON.stringify(e)), isError: e instanceof Error, isToolCallError: e instanceof ToolCallError }
      }`,
      {},
      pool,
    )
    expect(result.value).toEqual({
      own: ['name', 'toolName', 'message'],
      json: { name: 'ToolCallError', toolName: 'fail', message: 'the tool said no' },
      isError: true,
      isToolCallError: true,
    })
  })

  it('S9.3 calling an unknown tool rejects with a ToolCallError whose toolName is the name used, told apart by its message', async () => {
    const { result, calls } = await run(
      `try { await tools.nosuch({}) } catch (e) {
        return { isToolCallError: e instanceof ToolCallError, json: JSON.parse(JSON.stringify(e)), unknown: e.message.startsWith('There is no tool named ') }
      }`,
      { toolNames: ['echo', 'read_file'] },
      pool,
    )
    expect(calls).toHaveLength(0)
    expect(result.value).toEqual({
      isToolCallError: true,
      json: { name: 'ToolCallError', toolName: 'nosuch', message: "There is no tool named 'nosuch'. The tools are: echo, read_file." },
      unknown: true,
    })
  })

  it('turns a dispatch rejection into a ToolCallError', async () => {
    const { result } = await run('try { await tools.echo({}) } catch (e) { return e.name + ": " + e.message }', {
      dispatch: () => Promise.reject(new Error('registry exploded')),
    })
    expect(result.value).toBe('ToolCallError: the tool failed: registry exploded')
  })

  it('turns a non-JSON tool result into a ToolCallError', async () => {
    const { result } = await run('try { await tools.echo({}) } catch (e) { return e.message }', { dispatch: async () => ({ ok: true, valueJson: '{not json' }) })
    expect(result.value).toBe('the tool result is not valid JSON')
  })

  it('hands dispatch a unique pairing id, the name and the JSON arguments', async () => {
    const { calls } = await run('await Promise.all([tools.echo({ a: 1 }), tools.noop({ b: [2] })])', {}, pool)
    expect(calls.map(({ name, argsJson }) => ({ name, argsJson }))).toEqual([
      { name: 'echo', argsJson: '{"a":1}' },
      { name: 'noop', argsJson: '{"b":[2]}' },
    ])
    expect(new Set(calls.map((call) => call.pairingId)).size).toBe(2)
  })
})

describe('isolation between runs', () => {
  it('does not leak a global from one run into the next', async () => {
    const first = await run('globalThis.leaked = 42; Object.prototype.polluted = 1; return typeof leaked', {}, pool)
    expect(first.result.value).toBe('number')
    const second = await run("return [typeof globalThis.leaked, 'polluted' in {}]", {}, pool)
    expect(second.result.value).toEqual(['undefined', false])
  })
})

/** 10 times what `js` takes just now (on `on`), at least 500 ms: a deadline one phase must mostly fill (at load 21 a start alone took 300 ms). */
async function calibratedDeadline(js: string, on: IsolatePool | undefined = pool): Promise<number> {
  const { result } = await run(js, {}, on)
  expect(result.status).toBe('ok')
  return Math.max(500, Math.ceil(10 * result.durationMs))
}

describe('limits', () => {
  it('rejects calls beyond maxToolCalls with a ToolCallError naming the limit, without dispatching them', async () => {
    const { result, calls } = await run(
      `const out = []; for (let i = 0; i < 4; i++) { try { await tools.noop({}); out.push('ok') } catch (e) { out.push(e.message) } } return out`,
      { limits: { maxToolCalls: 2 } },
      pool,
    )
    expect(calls).toHaveLength(2)
    expect(result.toolCalls).toBe(2)
    const message = 'tool call limit reached: a run may make at most 2 tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.'
    expect(result.value).toEqual(['ok', 'ok', message, message])
  })

  it('queues calls beyond maxCallsInFlight instead of failing them', async () => {
    let inFlight = 0
    let peak = 0
    const { result } = await run('return (await Promise.all(Array.from({ length: 20 }, (_, i) => tools.slow({ i })))).length', {
      limits: { maxCallsInFlight: 3 },
      dispatch: async (call) => {
        peak = Math.max(peak, ++inFlight)
        await new Promise((resolve) => setTimeout(resolve, 5))
        inFlight--
        return { ok: true, valueJson: call.argsJson }
      },
    })
    expect(result).toMatchObject({ status: 'ok', value: 20, toolCalls: 20 })
    expect(peak).toBe(3)
  })

  it('S9.1 keeps the arguments of the calls in flight within maxCrossingBytes together, one call always going, and queues the rest (issue 12)', async () => {
    let inFlight = 0
    let peak = 0
    const slow = async (call: { argsJson: string }) => {
      peak = Math.max(peak, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, 5))
      inFlight--
      return { ok: true as const, valueJson: String(call.argsJson.length) }
    }
    // Each call's arguments are 408 characters of JSON: two fit in 1,000, a third does not.
    const script = 'return (await Promise.all(Array.from({ length: 12 }, () => tools.slow({ s: "x".repeat(400) })))).reduce((a, b) => a + b, 0)'
    const twoFit = await run(script, { limits: { maxCallsInFlight: 100, maxCrossingBytes: 1000 }, dispatch: slow })
    expect(twoFit.result).toMatchObject({ status: 'ok', value: 12 * 408, toolCalls: 12 })
    expect(peak).toBe(2)
    peak = 0
    // Over half the budget each: one at a time, never none.
    const oneAtATime = await run(script, { limits: { maxCallsInFlight: 100, maxCrossingBytes: 700 }, dispatch: slow })
    expect(oneAtATime.result).toMatchObject({ status: 'ok', value: 12 * 408 })
    expect(peak).toBe(1)
  })

  it('rejects too-large arguments before dispatch, naming maxCrossingBytes', async () => {
    const { result, calls } = await run('try { await tools.echo({ s: "x".repeat(2000) }) } catch (e) { return e.message }', { limits: { maxCrossingBytes: 1000 } }, pool)
    expect(calls).toHaveLength(0)
    expect(result.value).toBe('the arguments are too large: at least 2008 bytes of JSON, the limit is 1000 bytes (maxCrossingBytes); this call was not made')
  })

  it('measures arguments in UTF-8 bytes on the host', async () => {
    // 400 three-byte characters: 402 UTF-16 units (passes the isolate's check), 1202 bytes.
    const { result, calls } = await run('try { await tools.echo("€".repeat(400)) } catch (e) { return e.message }', { limits: { maxCrossingBytes: 1000 } }, pool)
    expect(calls).toHaveLength(0)
    expect(result.value).toBe('the arguments are too large: 1202 bytes of JSON, the limit is 1000 bytes (maxCrossingBytes); this call was not made')
  })

  it('S9.3 turns a too-large tool result into a ToolCallError that says the tool ran and not to repeat it', async () => {
    const { result } = await run('try { await tools.big({ size: 5000 }) } catch (e) { return [e.name, e.message] }', { limits: { maxCrossingBytes: 1000 } }, pool)
    expect(result.value).toEqual(['ToolCallError', 'the tool ran, but its result is too large to return: 5002 bytes of JSON, the limit is 1000 bytes (maxCrossingBytes). What the call did stands: do not repeat it to get the result; ask the tool for less (filters, pages, handles).'])
  })

  it('fails the run when the return value exceeds maxCrossingBytes', async () => {
    const { result } = await run('return "x".repeat(5000)', { limits: { maxCrossingBytes: 1000 } }, pool)
    expect(result.status).toBe('error')
    expect(result.error).toEqual({ name: 'RangeError', message: "the script's return value is too large: at least 5002 bytes of JSON, the limit is 1000 bytes (maxCrossingBytes). Return less, e.g. a summary or handles." })
  })

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
    const wallClockMs = await calibratedDeadline('await tools.noop({}); return 1')
    const { result } = await run('await tools.noop({}); while (true) {}', { limits: { wallClockMs, cpuTimeMs: 60_000 } }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 1 })
    expect(result.error?.message).toMatch(/most of it went to running the script's code \(.*running code [1-9]\d* ms/)
    await expectHealthy(pool)
  })

  it('S9.7 a wall-clock timeout names what used the time: waiting on tool calls, which are still running, and that they may have taken effect', async () => {
    // Long enough that the calls' waiting is most of it even when a loaded machine makes the start slow.
    const wallClockMs = await calibratedDeadline('await tools.noop({}); return 1')
    const { result } = await run('await tools.noop({}); await Promise.all([tools.hang({}), tools.hang({}), tools.slow({})])', {
      limits: { wallClockMs },
      dispatch: hangingDispatch((call) => (call.name === 'noop' ? Promise.resolve({ ok: true, valueJson: 'null' }) : undefined)).dispatch,
    }, pool)
    expect(result).toMatchObject({ status: 'timeout', toolCalls: 4 })
    expect(result.error?.message).toMatch(/most of it went to waiting on tool calls \(3 calls: hang ×2, slow still running\) .*\. The calls still running were stopped at the deadline and may or may not have taken effect: check before making them again\. If a tool is slow or hangs, ask it for less or raise timeoutMs; otherwise make fewer calls/)
  })

  it('S9.7 a wall-clock timeout names what used the time: waiting on nothing', async () => {
    const { result } = await run('await new Promise(() => {})', { limits: { wallClockMs: await calibratedDeadline('return 1') } }, pool)
    expect(result.error?.message).toMatch(/most of it went to waiting on nothing: no code ran and no tool call was pending .*a promise that never settles/)
  })

  it('aborts in-flight dispatch signals when the wall clock expires', async () => {
    const { signals, dispatch } = hangingDispatch()
    const { result } = await run('await tools.hang({})', { limits: { wallClockMs: 200 }, dispatch })
    expect(result.status).toBe('timeout')
    expect(signals).toHaveLength(1)
    expect(signals[0]!.aborted).toBe(true)
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
