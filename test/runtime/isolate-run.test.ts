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
})
