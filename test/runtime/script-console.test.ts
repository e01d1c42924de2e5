/**
 * What a script's console prints and how what it throws is described (issue 11: no value changes
 * silently, errors keep their cause; SPEC S9.3, S9.7), through `runInIsolate` and the real runtime.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { run } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

describe('console capture', () => {
  it('captures every level and formats values', async () => {
    const { result } = await run(
      `console.log('a', 1, { b: [true] }); console.info('i'); console.warn('w'); console.error(new TypeError('t')); console.debug(10n, undefined, Symbol('s'))
       const cyclic = {}; cyclic.self = cyclic; console.log(cyclic); console.log({ big: [2n ** 70n] })`,
      {},
      pool,
    )
    expect(result.logs).toEqual([
      { level: 'log', text: 'a 1 {"b":[true]}' },
      { level: 'info', text: 'i' },
      { level: 'warn', text: 'w' },
      { level: 'error', text: 'TypeError: t' },
      { level: 'debug', text: '10n undefined Symbol(s)' },
      { level: 'log', text: '{"self":[Circular]}' },
      { level: 'log', text: '{"big":[1180591620717411303424n]}' },
    ])
  })

  it('S9.7 writes what a value is where JSON would change or drop it, and plain JSON values as JSON', async () => {
    const { result } = await run(
      `console.log({ a: 1, s: 'x', list: [true, null] })
       console.log(NaN, -0, -Infinity, [1, undefined, , 3], { gone: undefined })
       class MyMap extends Map {}
       console.log(new Map([['a', 1], [{ k: 1 }, [2]]]), new Set([1, 'x']), { nested: new MyMap([[1, 2]]) })
       class Point { constructor() { this.x = 1 } }
       console.log(new Point(), function named() {}, Symbol('s'), new Date(0), /a+/g, new Uint8Array([1, 2]), { e: new TypeError('boom') }, Promise.resolve(1))
       const bad = { ok: 1, get broken() { throw new RangeError('no') } }
       console.log(bad)
       let deep = { end: 1 }
       for (let i = 0; i < 20; i++) deep = { d: deep }
       console.log(JSON.stringify(deep).length > 0 && deep)
       console.log(Array.from({ length: 1003 }, (_, i) => i))
       Map.prototype.forEach = () => { throw new Error('poisoned') }
       Object.keys = () => []
       console.log(new Map([[1, 2]]), { still: 'listed' })`,
      {},
      pool,
    )
    expect(result.status).toBe('ok')
    const texts = result.logs.map((log) => log.text)
    expect(texts.slice(0, 5)).toEqual([
      '{"a":1,"s":"x","list":[true,null]}',
      'NaN -0 -Infinity [1,undefined,<empty>,3] {"gone":undefined}',
      'Map(2) {"a" => 1,{"k":1} => [2]} Set(2) {1,"x"} {"nested":Map(1) {1 => 2}}',
      'Point {"x":1} [Function: named] Symbol(s) "1970-01-01T00:00:00.000Z" /a+/g Uint8Array(2) [1,2] {"e":[TypeError: boom]} Promise {}',
      '{"ok":1,"broken":[getter threw RangeError: no]}',
    ])
    expect(texts[5]).toBe(`${'{"d":'.repeat(12)}[Object]${'}'.repeat(12)}`)
    expect(texts[6]).toMatch(/^\[0,1,2,.*,999,… 3 more\]$/)
    // A script that replaces built-ins changes nothing in how its values are written.
    expect(texts[7]).toBe('Map(1) {1 => 2} {"still":"listed"}')
  })

  it('S9.7 one unreadable part of a logged value costs only itself; boxed primitives and dates print as what they hold', async () => {
    const { result } = await run(
      `const trap = new Proxy({}, { getPrototypeOf() { throw new Error('trap') } })
       console.log({ ok: NaN, bad: { toJSON() { throw new TypeError('no json') } }, trap, after: 1 })
       console.log(new Number(5), Object(true), new String('ab'), Object(10n), new Date(NaN), { d: new Date(0) })
       const typed = new Uint8Array(2); Object.defineProperty(typed, 'length', { get: () => 1e12 })
       let chain = { toJSON() { return { toJSON: this.toJSON } } }
       console.log(typed, Object.create(String.prototype), chain)`,
      {},
      pool,
    )
    expect(result.logs.map((log) => log.text)).toEqual([
      '{"ok":NaN,"bad":[unreadable: TypeError: no json],"trap":[unreadable: Error: trap],"after":1}',
      '5 true "ab" 10n Invalid Date {"d":"1970-01-01T00:00:00.000Z"}',
      'Uint8Array(2) [0,0] String {} [Object]',
    ])
  })

  it('S9.3 a thrown value that is not an Error is reported as the console writes it', async () => {
    const texts = []
    for (const thrown of ['10n', '[new Error("in array")]', '{ list: [NaN], m: new Set([1]) }', 'Symbol("s")']) {
      const { result } = await run(`throw ${thrown}`, {}, pool)
      texts.push(result.error?.message)
    }
    const hint = ' (not an Error, so no line is known: throw new Error(…) to get one)'
    expect(texts).toEqual([`10n${hint}`, `a thrown non-Error value: [[Error: in array]]${hint}`, `a thrown non-Error value: {"list":[NaN],"m":Set(1) {1}}${hint}`, `Symbol(s)${hint}`])
  })

  it('truncates a log flood at maxLogBytes with one notice', async () => {
    const { result } = await run('for (let i = 0; i < 100000; i++) console.log("line " + i); return "done"', { limits: { maxLogBytes: 1_000 } }, pool)
    expect(result.status).toBe('ok')
    expect(result.logs.length).toBeLessThan(40)
    expect(result.logs.at(-1)).toEqual({ level: 'warn', text: '[logs truncated: the log budget of 1000 bytes (maxLogBytes) is used up]' })
  })
  it("S9.3 reports an error's cause chain, so a rethrown tool failure keeps the tool's words", async () => {
    const { result } = await run(
      `try { await tools.fail({}) } catch (e) { throw new Error('step 2 failed', { cause: new TypeError('while parsing', { cause: e }) }) }`,
      {},
      pool,
    )
    expect(result).toMatchObject({ status: 'error', error: { name: 'Error', message: 'step 2 failed (cause: TypeError: while parsing (cause: ToolCallError: the tool said no))' } })
    const primitive = await run(`console.error(new Error('x', { cause: 'quota' })); throw new Error('y', { cause: 7 })`, {}, pool)
    expect(primitive.result).toMatchObject({ status: 'error', error: { message: 'y (cause: 7)' }, logs: [{ level: 'error', text: 'Error: x (cause: "quota")' }] })
    // A cycle of causes says so; a chain stops after three; a plain object cause is written as the console writes it.
    const cyclic = await run(`const a = new Error('a'); const b = new Error('b', { cause: a }); a.cause = b; throw a`, {}, pool)
    expect(cyclic.result.error?.message).toBe('a (cause: Error: b (cause: [Circular]))')
    const long = await run(`let e = new Error('0'); for (let i = 1; i < 6; i++) e = new Error(String(i), { cause: e }); throw e`, {}, pool)
    expect(long.result.error?.message).toBe('5 (cause: Error: 4 (cause: Error: 3 (cause: Error: 2)))')
    const plain = await run(`throw new Error('quota', { cause: { code: 42, list: [NaN, undefined], m: new Map([[1, 2]]) } })`, {}, pool)
    expect(plain.result.error?.message).toBe('quota (cause: {"code":42,"list":[NaN,undefined],"m":Map(1) {1 => 2}})')
    // A long message is cut so the cause still fits.
    const huge = await run(`throw new Error('x'.repeat(5000), { cause: new TypeError('the real reason') })`, {}, pool)
    expect(huge.result.error?.message).toMatch(/^x{1200}… \(cause: TypeError: the real reason\)$/)
  })

  it('S9.7 from a review: a throwing function name, a Date with its own toJSON, a Number subclass, a getter that logs past the budget', async () => {
    const { result } = await run(
      `const f = function () {}; Object.defineProperty(f, 'name', { get() { throw new Error('nm') } })
       class Stamp extends Date { toJSON() { return 'custom' } }
       class N extends Number {}
       console.log({ ok: 1, f, after: 2 }, new Stamp(0), new N(5))
       const noisy = { get x() { console.log('y'.repeat(300)); return 1 } }
       console.log(noisy)`,
      { limits: { maxLogBytes: 400 } },
      pool,
    )
    const texts = result.logs.map((log) => log.text)
    expect(texts[0]).toBe('{"ok":1,"f":[Function (anonymous)],"after":2} "custom" 5')
    // The getter's own line used up the budget: the notice is the last line, nothing after it.
    expect(texts.at(-1)).toBe('[logs truncated: the log budget of 400 bytes (maxLogBytes) is used up]')
    expect(texts.filter((text) => text.startsWith('[logs truncated'))).toHaveLength(1)
  })

  it("S9.3 describing a script's error runs no tool call its getters start, and a cause whose message throws is said", async () => {
    const { result, calls } = await run(
      `const cause = { get message() { throw new RangeError('nm') } }
       const e = new Error('outer', { cause }); Object.defineProperty(e, 'name', { get() { tools.echo({ late: true }); return 'Sneaky' } })
       throw e`,
      {},
      pool,
    )
    expect(result.error).toMatchObject({ name: 'Sneaky', message: 'outer (cause: [unreadable: RangeError: nm])' })
    expect(calls).toEqual([])
  })
})
