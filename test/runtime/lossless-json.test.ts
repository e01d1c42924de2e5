/**
 * SPEC S6.1 inside the isolate: a value JSON would change is refused, naming its path and what to
 * send instead, in return values and tool arguments alike; nothing is silently turned into `{}`.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { run } from './harness.ts'

const pool = new IsolatePool({ size: 1 })
afterAll(() => pool.dispose())

const CASES: [label: string, expression: string, problem: string][] = [
  ['a Map', "new Map([['ts', 1]])", 'is a Map: convert it with Object.fromEntries(map), or Array.from(map) for non-string keys'],
  ['a Set', 'new Set([1])', 'is a Set: convert it with Array.from(set)'],
  ['a WeakMap', 'new WeakMap()', 'is a WeakMap: it holds nothing JSON can carry'],
  ['a Uint8Array', 'new Uint8Array([0, 1])', 'is a Uint8Array: convert it with Array.from(…)'],
  ['a Float64Array', 'new Float64Array(2)', 'is a Float64Array: convert it with Array.from(…)'],
  ['a DataView', 'new DataView(new ArrayBuffer(2))', 'is a DataView: convert its bytes with Array.from(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))'],
  ['an ArrayBuffer', 'new ArrayBuffer(2)', 'is an ArrayBuffer: convert it with Array.from(new Uint8Array(buffer))'],
  ['a Promise', 'Promise.resolve(1)', 'is a Promise: await it first'],
  ['a RegExp', '/x/g', 'is a RegExp: send its source (regexp.source)'],
  ['an Error', "new TypeError('x')", 'is an Error: send { name: error.name, message: error.message }'],
  ['a subclass of Map', "new (class Index extends Map {})()", 'is a Map: convert it with Object.fromEntries(map), or Array.from(map) for non-string keys'],
  ['a class instance without toJSON', 'new (class Point { constructor() { this.x = 1 } })()', 'is an instance of Point with no toJSON: JSON would keep only its own fields; send a plain object ({ ...instance }) or give the class a toJSON method'],
  ['a function', '() => 1', 'is a function: functions cannot be sent as JSON'],
  ['a symbol', "Symbol('s')", 'is a symbol: symbols cannot be sent as JSON'],
  ['a BigInt', '10n', 'is a BigInt: convert it with Number(…) or String(…)'],
  ['NaN', 'NaN', 'is NaN: JSON would turn it into null'],
  ['-Infinity', '-Infinity', 'is -Infinity: JSON would turn it into null'],
  ['a Number object holding NaN', 'new Number(NaN)', 'is a Number object holding NaN: JSON would turn it into null'],
  ['a Number object holding Infinity', 'Object(Infinity)', 'is a Number object holding Infinity: JSON would turn it into null'],
  ['a BigInt object', 'Object(10n)', 'is a BigInt object: convert it with Number(…) or String(…)'],
  ['a Symbol object', "Object(Symbol('s'))", 'is a Symbol object: symbols cannot be sent as JSON'],
  ['a Date a toJSON returned', '{ toJSON() { return new Date(0) } }', 'is a Date that no toJSON turned into a string (JSON calls toJSON once): send date.toISOString()'],
]

describe('S6.1 values JSON would change are refused with their path', () => {
  it.each(CASES)('S6.1 a returned %s is refused, naming value.byExt', async (_label, expression, problem) => {
    const { result } = await run(`return { ok: 1, byExt: ${expression} }`, {}, pool)
    expect(result.status).toBe('error')
    expect(result.error).toEqual({ name: 'TypeError', message: `the script's return value cannot be converted to JSON: value.byExt ${problem}` })
  })

  it.each(CASES)('S6.1 %s in tool arguments is refused before dispatch, naming args.list[1].x', async (_label, expression, problem) => {
    const { result, calls } = await run(`try { await tools.echo({ list: [0, { x: ${expression} }] }) } catch (e) { return e.name + ': ' + e.message }`, {}, pool)
    expect(calls).toHaveLength(0)
    expect(result.value).toBe(`ToolCallError: the arguments cannot be sent as JSON: args.list[1].x ${problem}`)
  })

  it('S6.1 an object made from Number.prototype that holds no number crosses as its own fields, as JSON sends it', async () => {
    const { result } = await run('const o = Object.create(Number.prototype); o.x = 1; return { o }', {}, pool)
    expect(result.value).toEqual({ o: { x: 1 } })
  })

  it('S6.1 a return value whose toJSON returns nothing is refused, saying so', async () => {
    const { result } = await run('return { toJSON() { return undefined } }', {}, pool)
    expect(result.error).toEqual({ name: 'TypeError', message: "the script's return value cannot be converted to JSON: value has a toJSON that returned nothing: JSON would send nothing; return a JSON value from it" })
  })

  it('S6.1 a Date crosses as what its toJSON gives, as in JSON.stringify: its ISO string, null for an invalid one', async () => {
    const { result } = await run(`return await tools.echo({ when: new Date(0), bad: new Date('x'), list: [new Date(NaN)] })`, {}, pool)
    expect(result.value).toEqual({ when: '1970-01-01T00:00:00.000Z', bad: null, list: [null] })
  })

  it('S6.1 an undefined element and a hole of a sparse array are refused; an undefined property is dropped as usual', async () => {
    const { result } = await run(
      `const out = []
       for (const v of [[1, undefined], [1, , 3]]) { try { await tools.echo({ v }) } catch (e) { out.push(e.message) } }
       out.push(await tools.echo({ a: undefined, b: 1 }))
       return out`,
      {},
      pool,
    )
    expect(result.value).toEqual([
      'the arguments cannot be sent as JSON: args.v[1] is undefined: JSON would turn it into null; use null',
      'the arguments cannot be sent as JSON: args.v[1] is a hole of a sparse array: JSON would turn it into null; fill it',
      { b: 1 },
    ])
  })

  it('S6.1 a value nested too deeply to convert says so and what to send, in return values and arguments alike', async () => {
    const deep = 'const root = {}; let o = root; for (let i = 0; i < 100000; i++) { o.c = {}; o = o.c }'
    const why = "the call stack ran out while converting it: either the value is nested too deeply (send a flatter value, e.g. a list instead of a chain of nested objects) or the script's own recursion had nearly filled the stack when it made the call (make the call from a shallower point)"
    const args = await run(`${deep}; try { await tools.echo({ d: root }) } catch (e) { return e.message }`, {}, pool)
    expect(args.calls).toHaveLength(0)
    expect(args.result.value).toBe(`the arguments cannot be sent as JSON: ${why}`)
    const returned = await run(`${deep}; return root`, {}, pool)
    expect(returned.result.error?.message).toMatch(/^the script's return value cannot be converted to JSON: the call stack ran out while converting it: either it is nested too deeply \(deeper than 256 levels: send a flatter value/)
  })

  it('S9.7 a return value that overflows the stack says it is nested deeper than 256 levels or a getter or toJSON in it recurses, without mentioning a call', async () => {
    const message = "the script's return value cannot be converted to JSON: the call stack ran out while converting it: either it is nested too deeply (deeper than 256 levels: send a flatter value, a list instead of a chain of nested objects) or a getter or toJSON in it recurses without end"
    const deep = await run('let v = 1; for (let i = 0; i < 100000; i++) v = [v]; return v', {}, pool)
    expect(deep.result.error).toEqual({ name: 'TypeError', message })
    // One level deep, but its getter recurses: not only nesting is named.
    const getter = await run('return { get x() { return this.x } }', {}, pool)
    expect(getter.result.error).toEqual({ name: 'TypeError', message })
  })

  it('S9.3 a flat argument sent from the bottom of a deep recursion says the script’s own recursion may have filled the stack', async () => {
    const js = 'function f(d) { try { return f(d + 1) } catch { return tools.echo({ i: d }) } }\nreturn (await f(0)).i'
    const { result } = await run(js, {}, pool)
    expect(result.status).toBe('error')
    expect(result.error?.message).toContain("the script's own recursion had nearly filled the stack when it made the call (make the call from a shallower point)")
  })

  it('S6.1 a cycle names where it closes; a shared (acyclic) object is fine', async () => {
    const { result } = await run(`const a = { list: [] }; a.list.push({ back: a }); try { await tools.echo(a) } catch (e) { const shared = { s: 1 }; return [e.message, await tools.echo({ x: shared, y: [shared] })] }`, {}, pool)
    expect(result.value).toEqual(['the arguments cannot be sent as JSON: args.list[0].back refers back to args: a cycle cannot be sent as JSON', { x: { s: 1 }, y: [{ s: 1 }] }])
  })

  it('S6.1 keeps what JSON carries losslessly: plain and null-prototype objects, arrays, Dates (toJSON), boxed primitives, odd keys', async () => {
    const { result } = await run(
      `const bare = Object.create(null); bare.k = 1
       class Stamp { toJSON() { return 'stamp' } }
       return { bare, when: new Date(0), n: new Number(2), s: new String('s'), stamp: new Stamp(), 'odd key': [true, null] }`,
      {},
      pool,
    )
    expect(result).toMatchObject({ status: 'ok', value: { bare: { k: 1 }, when: '1970-01-01T00:00:00.000Z', n: 2, s: 's', stamp: 'stamp', 'odd key': [true, null] } })
  })

  // Hostile: a value that hides what it is until JSON.stringify reaches it is still refused.
  it.each([
    ['behind a toJSON', '({ toJSON() { return new Map([[1, 2]]) } })', 'value.x is a Map'],
    ['behind a Proxy', 'new Proxy(new Set([1]), {})', 'value.x is a Set'],
    ['behind a getter', '({ get lazy() { return new DataView(new ArrayBuffer(1)) } })', 'value.x.lazy is a DataView'],
    ['frozen', 'Object.freeze(new Map())', 'value.x is a Map'],
    ['a subclass of a typed array', 'new (class Bytes extends Uint8Array {})(2)', 'value.x is a Uint8Array'],
    ['in an array in an array', '[[0, new Float32Array(1)]]', 'value.x[0][1] is a Float32Array'],
  ])('S6.1 a lossy value %s is refused with its path, in return values and tool arguments', async (_label, expression, problem) => {
    const returned = await run(`return { x: ${expression} }`, {}, pool)
    expect(returned.result).toMatchObject({ status: 'error', error: { name: 'TypeError' } })
    expect(returned.result.error?.message).toContain(`cannot be converted to JSON: ${problem}: `)
    const sent = await run(`try { await tools.echo({ x: ${expression} }); return 'sent' } catch (e) { return e.message }`, {}, pool)
    expect(sent.calls).toHaveLength(0)
    expect(sent.result.value).toContain(`cannot be sent as JSON: ${problem.replace(/^value/, 'args')}: `)
  })

  it('S6.1 names odd keys in brackets', async () => {
    const { result } = await run(`return { 'my key': { 'a-b': new Set() } }`, {}, pool)
    expect(result.error?.message).toBe(`the script's return value cannot be converted to JSON: value["my key"]["a-b"] is a Set: convert it with Array.from(set)`)
  })
})
