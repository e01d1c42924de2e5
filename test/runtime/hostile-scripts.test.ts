/**
 * Hostile scripts: each case asserts the exact secure outcome and then that the host still
 * serves a normal run (`expectHealthy`).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { TOO_DEEP } from '../../src/ptc/isolate/run-endings.ts'
import { DEFAULT_RUN_LIMITS } from '../../src/ptc/isolate/run-limits.ts'
import { MAX_FRAMES } from '../../src/ptc/isolate/script-frames.ts'
import { expectHealthy, MEMORY_BOMB_LIMITS, run } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

describe('resource exhaustion', () => {
  it('ends a memory bomb with status memory', async () => {
    const { result } = await run('const a = []; for (;;) a.push(new Array(1e6).fill(1))', { limits: MEMORY_BOMB_LIMITS })
    expect(result.status).toBe('memory')
    expect(result.error).toEqual({
      name: 'MemoryError',
      message: 'The script exceeded the isolate memory limit of 32 MB (memoryMb). Process data in smaller pieces and keep less of it in memory.',
    })
    await expectHealthy(pool)
  })

  it('ends a memory bomb after an await (inside a settle) with status memory', async () => {
    const { result } = await run('await tools.noop({}); const a = []; for (;;) a.push(new Array(1e6).fill(1))', { limits: MEMORY_BOMB_LIMITS })
    expect(result.status).toBe('memory')
    await expectHealthy(pool)
  })

  it('S9.1 a script nested too deeply for V8\'s parser ends with a SyntaxError saying so, no isolated-vm location', async () => {
    const { result } = await run(`return ${'['.repeat(20_000)}${']'.repeat(20_000)}`, {}, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'SyntaxError', message: TOO_DEEP } })
    await expectHealthy(pool)
  })

  it('reports deep recursion as status error RangeError', async () => {
    const { result } = await run('function f(n) { return f(n + 1) + 1 } return f(0)', {}, pool)
    expect(result.status).toBe('error')
    expect(result.error).toMatchObject({ name: 'RangeError', message: 'Maximum call stack size exceeded' })
    // Issue 11: the script's frames, capped, in the coordinates of the run's js (line 1 here).
    expect(result.error?.frames).toHaveLength(MAX_FRAMES)
    expect(new Set(result.error?.frames?.map((frame) => `${frame.function} ${frame.line}`))).toEqual(new Set(['f 1']))
    await expectHealthy(pool)
  })

  it('ends a synchronous while(true) with status timeout naming the CPU limit', async () => {
    const { result } = await run('while (true) {}', { limits: { cpuTimeMs: 200 } }, pool)
    expect(result.status).toBe('timeout')
    expect(result.error).toEqual({
      name: 'TimeoutError',
      message: 'The script used more than its CPU time limit of 200 ms (cpuTimeMs). Look for an endless loop or do less computation in the script.',
    })
    // Ended by the CPU watchdog, before the wall clock (30 s by default) could end it.
    expect(result.durationMs).toBeLessThan(DEFAULT_RUN_LIMITS.wallClockMs)
    await expectHealthy(pool)
  })

  it('ends an endless loop after a tool call (async part) with status timeout', async () => {
    const { result } = await run('await tools.noop({}); for (;;) {}', { limits: { cpuTimeMs: 200 } }, pool)
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toContain('CPU time limit of 200 ms (cpuTimeMs)')
    await expectHealthy(pool)
  })

  it('ends CPU spread over many short turns when their sum passes the limit', async () => {
    const { result } = await run('for (;;) { const t = Date.now(); while (Date.now() - t < 20) {} await tools.noop({}) }', { limits: { cpuTimeMs: 300, maxToolCalls: 1_000_000 } }, pool)
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toContain('(cpuTimeMs)')
    await expectHealthy(pool)
  })

  it('ends await new Promise(() => {}) at the wall clock', async () => {
    const { result } = await run('await new Promise(() => {})', { limits: { wallClockMs: 250 } }, pool)
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toContain('(wallClockMs)')
    await expectHealthy(pool)
  })

  // Isolate "CPU time" is wall time while the isolate runs (isolated-vm times it with a steady
  // clock), so it grows with machine load. The burst's budget is therefore derived from a
  // calibration measured here, on the same pool just before: 100,000 resolved promises awaited
  // with Promise.allSettled. A per-call cost like a dispatched call's, or a quadratic one, is
  // hundreds of times that and ends the run as a timeout; an idle machine gets the default budget.
  it('survives a burst of 100,000 parallel calls: 1,000 dispatched, the rest rejected quickly and clearly', { timeout: 600_000 }, async () => {
    const calibration = await run('await Promise.allSettled(Array.from({ length: 100000 }, (_, i) => Promise.resolve(i)))', { limits: { wallClockMs: 60_000, cpuTimeMs: 60_000 } }, pool)
    expect(calibration.result.status).toBe('ok')
    const budgetMs = Math.ceil(Math.max(DEFAULT_RUN_LIMITS.cpuTimeMs, 200 * calibration.result.durationMs))
    const { result, calls } = await run(
      `const settled = await Promise.allSettled(Array.from({ length: 100000 }, () => tools.noop({})))
       const rejected = settled.filter((s) => s.status === 'rejected')
       return { fulfilled: settled.length - rejected.length, rejected: rejected.length, first: rejected[0].reason.message, name: rejected[0].reason.name }`,
      { limits: { wallClockMs: budgetMs, cpuTimeMs: budgetMs } },
      pool,
    )
    expect(result.status, `budget ${budgetMs} ms (200 × the calibration's ${Math.round(calibration.result.durationMs)} ms)`).toBe('ok')
    expect(result.value).toEqual({
      fulfilled: 1000,
      rejected: 99000,
      first: 'tool call limit reached: a run may make at most 1000 tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.',
      name: 'ToolCallError',
    })
    expect(calls).toHaveLength(1000)
    await expectHealthy(pool)
  })

  it('treats an unhandled rejection as a warning, not a crash', async () => {
    const { result } = await run('Promise.reject(new Error("ignored")); tools.fail({}); await tools.slow({}); return "still running"', {}, pool)
    expect(result.status).toBe('ok')
    expect(result.value).toBe('still running')
    // Issue 11: each reported in `warnings`, with the rejected error's frame in the script.
    expect(result.warnings?.map((warning) => warning.message.split('.')[0])).toEqual(['Unhandled promise rejection: Error: ignored', 'Unhandled promise rejection: ToolCallError: the tool said no'])
    expect(result.warnings?.[0]?.frames).toEqual([{ line: 1, column: 16 }])
    await expectHealthy(pool)
  })

  it('S9.3 reports a ToolCallError the script leaves unhandled after an answered call as a warning', async () => {
    const { result } = await run('await tools.noop({}); tools.fail({}); await tools.slow({}); return "still running"', {}, pool)
    expect(result).toMatchObject({ status: 'ok', value: 'still running' })
    expect(result.warnings?.map((warning) => warning.message.split('.')[0])).toEqual(['Unhandled promise rejection: ToolCallError: the tool said no'])
  })
})

describe('escapes', () => {
  it('cannot reach process through the constructor chain', async () => {
    const { result } = await run("return this.constructor.constructor('return process')()", {}, pool)
    expect(result.status).toBe('error')
    expect(result.error).toMatchObject({ name: 'ReferenceError', message: 'process is not defined' })
    await expectHealthy(pool)
  })

  it('has no require, process, timers, fetch, shared memory or WebAssembly', async () => {
    const { result } = await run(
      "return ['process', 'require', 'module', 'setTimeout', 'setInterval', 'fetch', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'ivm', '_ivm'].filter((name) => name in globalThis)",
      {},
      pool,
    )
    expect(result.value).toEqual([])
  })

  it('S9.1 has the ES2025 built-ins the type check declares (Set methods, iterator helpers, Promise.try, RegExp.escape, Float16Array)', async () => {
    const { result } = await run(
      "return [new Set([1, 2]).union(new Set([3])).size, [1, 2].values().map((x) => x * 2).toArray(), await Promise.try(() => 7), RegExp.escape('a.b'), new Float16Array(2).length]",
      {},
      pool,
    )
    expect(result.value).toEqual([3, [2, 4], 7, '\\x61\\.b', 2])
  })

  it('finds nothing isolated-vm related anywhere a script can look', async () => {
    const { result } = await run(
      `const found = []
       const seen = new Set()
       function scan(value, path, depth) {
         if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 4) return
         seen.add(value)
         for (const key of Reflect.ownKeys(value)) {
           const name = String(key)
           if (/ivm|isolated/i.test(name) || /^(Reference|Callback|ExternalCopy|Dereference|Isolate|Context|Script|Copy)$/.test(name) || (depth === 0 && /^\\$\\d+$/.test(name))) found.push(path + '.' + name)
           let child
           try { child = Object.getOwnPropertyDescriptor(value, key).value } catch { continue }
           if (typeof child === 'function' && /ivm|isolated/.test(Function.prototype.toString.call(child))) found.push(path + '.' + name + '()')
           scan(child, path + '.' + name, depth + 1)
         }
         scan(Object.getPrototypeOf(value), path + '.__proto__', depth + 1)
       }
       scan(globalThis, 'globalThis', 0)
       let caught
       try { await tools.fail({}) } catch (e) { caught = e }
       scan(caught, 'error', 0)
       return {
         found,
         toolSource: tools.echo.toString(),
         toolCtor: tools.echo.constructor === Function,
         errorKeys: Reflect.ownKeys(caught).map(String),
         consoleSource: console.log.toString().includes('ivm'),
       }`,
      {},
      pool,
    )
    expect(result.status).toBe('ok')
    expect(result.value).toEqual({
      found: [],
      toolSource: 'function () { [native code] }',
      toolCtor: true,
      errorKeys: ['stack', 'name', 'toolName', 'message'],
      consoleSource: false,
    })
  })

  it('cannot obtain runtime functions through Error.prepareStackTrace call sites', async () => {
    const { result } = await run(
      `const leaked = []
       Error.prepareStackTrace = (error, sites) => { for (const site of sites) { const fn = site.getFunction(); if (fn) leaked.push(String(fn).slice(0, 40)) } return 'x' }
       const evil = { get a() { new Error().stack; return 1 } }
       await tools.echo(evil)
       return leaked`,
      {},
      pool,
    )
    expect(result.status).toBe('ok')
    expect(result.value).toEqual(['get a() { new Error().stack; return 1 }'])
  })
})

describe('arguments crafted by the script', () => {
  it('rejects a throwing getter in the arguments with a ToolCallError, without dispatching', async () => {
    const { result, calls } = await run(
      'try { await tools.echo({ get boom() { throw new Error("getter says no") } }) } catch (e) { return [e.name, e.toolName, e.message] }',
      {},
      pool,
    )
    expect(calls).toHaveLength(0)
    expect(result.value).toEqual(['ToolCallError', 'echo', 'the arguments cannot be sent as JSON: getter says no'])
    await expectHealthy(pool)
  })

  it('serializes a Proxy argument once, as plain JSON data', async () => {
    const { result, calls } = await run(
      `let reads = 0
       const proxy = new Proxy({ a: 1 }, { get(target, key) { reads++; return key === 'a' ? reads : Reflect.get(target, key) } })
       return await tools.echo(proxy)`,
      {},
      pool,
    )
    expect(calls).toHaveLength(1)
    expect(typeof calls[0]!.argsJson).toBe('string')
    expect(result.value).toEqual(JSON.parse(calls[0]!.argsJson))
  })

  it('rejects values JSON cannot carry losslessly (S6.1)', async () => {
    const { result, calls } = await run(
      `const out = []
       for (const args of [{ f() {} }, { n: NaN }, { b: 1n }, [undefined], { s: Symbol('s') }, (() => { const c = {}; c.c = c; return c })()]) {
         try { await tools.echo(args); out.push('sent') } catch (e) { out.push(e.message) }
       }
       return out`,
      {},
      pool,
    )
    expect(calls).toHaveLength(0)
    expect(result.value).toEqual([
      'the arguments cannot be sent as JSON: args.f is a function: functions cannot be sent as JSON',
      'the arguments cannot be sent as JSON: args.n is NaN: JSON would turn it into null',
      'the arguments cannot be sent as JSON: args.b is a BigInt: convert it with Number(…) or String(…)',
      'the arguments cannot be sent as JSON: args[0] is undefined: JSON would turn it into null; use null',
      'the arguments cannot be sent as JSON: args.s is a symbol: symbols cannot be sent as JSON',
      'the arguments cannot be sent as JSON: args.c refers back to args: a cycle cannot be sent as JSON',
    ])
  })

  it('keeps a __proto__ key as plain data on the host, polluting nothing', async () => {
    const { result, calls } = await run('return await tools.echo(JSON.parse(\'{"__proto__": {"polluted": true}, "a": 1}\'))', {}, pool)
    expect(calls[0]!.argsJson).toBe('{"__proto__":{"polluted":true},"a":1}')
    const parsed = JSON.parse(calls[0]!.argsJson) as Record<string, unknown>
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true)
    expect((result.value as Record<string, unknown>).a).toBe(1)
    expect(Object.hasOwn(result.value as object, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('non-JSON return values', () => {
  it.each([
    ['a function', 'return () => 1', "the script's return value cannot be converted to JSON: value is a function: functions cannot be sent as JSON"],
    ['a BigInt', 'return 10n', "the script's return value cannot be converted to JSON: value is a BigInt: convert it with Number(…) or String(…)"],
    ['a symbol', "return Symbol('s')", "the script's return value cannot be converted to JSON: value is a symbol: symbols cannot be sent as JSON"],
    ['a nested function', 'return { ok: 1, f() {} }', `the script's return value cannot be converted to JSON: value.f is a function: functions cannot be sent as JSON`],
  ])('fails the run with status error for %s', async (_label, js, message) => {
    const { result } = await run(js, {}, pool)
    expect(result.status).toBe('error')
    expect(result.error).toEqual({ name: 'TypeError', message })
  })

  it('fails the run with status error for a cycle', async () => {
    const { result } = await run('const a = {}; a.self = a; return a', {}, pool)
    expect(result.status).toBe('error')
    expect(result.error?.message).toBe("the script's return value cannot be converted to JSON: value.self refers back to value: a cycle cannot be sent as JSON")
    await expectHealthy(pool)
  })
})

describe('poisoned built-ins do not corrupt tool calls (captured intrinsics)', () => {
  it('survives poisoned JSON, Promise.prototype.then, Array.prototype, Object.prototype and Symbol.species', async () => {
    const { result, calls } = await run(
      `JSON.stringify = () => '"poisoned stringify"'
       JSON.parse = () => 'poisoned parse'
       Promise.prototype.then = function () { throw new Error('poisoned then') }
       Promise.prototype.catch = function () { throw new Error('poisoned catch') }
       Object.defineProperty(Promise, Symbol.species, { get() { throw new Error('poisoned species') } })
       Array.prototype.push = function () { throw new Error('poisoned push') }
       Array.prototype[Symbol.iterator] = function () { throw new Error('poisoned iterator') }
       Object.defineProperty(Object.prototype, 'resolve', { get() { throw new Error('poisoned resolve') }, configurable: true })
       Object.defineProperty(Array.prototype, '0', { set() { throw new Error('poisoned index') }, configurable: true })
       Function.prototype.call = function () { throw new Error('poisoned call') }
       Function.prototype.apply = function () { throw new Error('poisoned apply') }
       Function.prototype.bind = function () { throw new Error('poisoned bind') }
       Reflect.apply = () => { throw new Error('poisoned Reflect.apply') }
       const a = await tools.echo({ list: [1, 2, 3], nested: { s: 'x' } })
       let failure
       try { await tools.fail({}) } catch (e) { failure = e.name + ': ' + e.message }
       console.log('logged', { a: 1 })
       return { a, failure }`,
      {},
      pool,
    )
    expect(calls.map((call) => call.argsJson)).toEqual(['{"list":[1,2,3],"nested":{"s":"x"}}', '{}'])
    expect(result.status).toBe('ok')
    expect(result.value).toEqual({ a: { list: [1, 2, 3], nested: { s: 'x' } }, failure: 'ToolCallError: the tool said no' })
    expect(result.logs).toEqual([{ level: 'log', text: 'logged {"a":1}' }])
    await expectHealthy(pool)
  })

  it('cannot forge the host-side outcome by spoofing internal messages in rejections', async () => {
    const { result } = await run("Promise.reject(new Error('Isolate was disposed during execution due to memory limit')); await tools.slow({}); return 'fine'", {}, pool)
    expect(result.status).toBe('ok')
    expect(result.value).toBe('fine')
  })
})
