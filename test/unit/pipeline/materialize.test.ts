import { describe, expect, it } from 'vitest'
import { NotJsonError } from '../../../src/errors/ptc-error.ts'
import { canonicalJson, deepFreeze, MAX_JSON_DEPTH, materializeJson } from '../../../src/pipeline/materialize.ts'

const rejects = (value: unknown, message: RegExp, path: string) => {
  let thrown: unknown
  try {
    materializeJson(value)
  } catch (error) {
    thrown = error
  }
  expect(NotJsonError.isInstance(thrown), `expected NotJsonError for ${String(message)}`).toBe(true)
  expect((thrown as NotJsonError).message).toMatch(message)
  expect((thrown as NotJsonError).details).toEqual({ path })
  expect((thrown as Error).message.startsWith(`${path}: `)).toBe(true)
}

describe('materializeJson (S6.1)', () => {
  it('S6.1 copies plain JSON losslessly into a fresh deep-frozen value', () => {
    const input = { a: 1, b: ['x', true, null, { c: -2.5 }], d: { e: '' } }
    const out = materializeJson(input)
    expect(out).toEqual(input)
    expect(out).not.toBe(input)
    expect(Object.isFrozen(out)).toBe(true)
    expect(Object.isFrozen((out as { b: unknown[] }).b)).toBe(true)
    expect(Object.isFrozen((out as { b: object[] }).b[3])).toBe(true)
    expect(Object.isFrozen(input)).toBe(false) // the caller's object is untouched
  })

  it('S6.1 a getter that answers differently on each read is read exactly once', () => {
    let reads = 0
    const input = {
      get path() {
        reads++
        return reads === 1 ? '/safe' : '/etc/shadow'
      },
    }
    const out = materializeJson(input) as { path: string }
    expect(reads).toBe(1)
    expect(out.path).toBe('/safe')
    expect(out.path).toBe('/safe')
    expect(Object.getOwnPropertyDescriptor(out, 'path')).toMatchObject({ value: '/safe', writable: false })
  })

  it('S6.1 a Proxy is read once per key and the copy no longer depends on it', () => {
    const gets: string[] = []
    let flip = false
    const proxy = new Proxy({ a: 1, b: 'x' } as Record<string, unknown>, {
      get(target, key, receiver) {
        gets.push(String(key))
        return flip ? 'changed' : Reflect.get(target, key, receiver)
      },
    })
    const out = materializeJson(proxy)
    flip = true
    expect(out).toEqual({ a: 1, b: 'x' })
    expect(gets.filter((key) => key === 'a' || key === 'b').sort()).toEqual(['a', 'b'])
  })

  it('S6.1 a hostile Proxy whose traps throw is an error, not a crash of the process', () => {
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('trap') } })
    expect(() => materializeJson(proxy)).toThrow('trap')
    const { proxy: revoked, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(() => materializeJson({ nested: revoked })).toThrow()
  })

  it('S6.1 a "__proto__" key arrives as data and pollutes no prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')
    const out = materializeJson(input) as Record<string, unknown>
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(out)).toEqual(['__proto__', 'ok'])
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true })
    expect((out as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('S6.1 constructor/prototype keys are plain data too', () => {
    const out = materializeJson(JSON.parse('{"constructor": {"prototype": {"x": 1}}}')) as Record<string, unknown>
    expect(out.constructor).toEqual({ prototype: { x: 1 } })
    expect(({} as { x?: unknown }).x).toBeUndefined()
  })

  it('S6.1 null-prototype objects are accepted as plain objects', () => {
    const input = Object.assign(Object.create(null), { a: 1 })
    expect(materializeJson(input)).toEqual({ a: 1 })
  })

  it('S6.1 undefined object properties are dropped, as JSON does', () => {
    expect(materializeJson({ a: undefined, b: 1 })).toEqual({ b: 1 })
  })

  it('S6.1 values JSON cannot carry losslessly are rejected with a message naming the path', () => {
    rejects({ n: 10n }, /BigInt is not JSON/, '$.n')
    rejects({ f: () => 1 }, /a function is not JSON/, '$.f')
    rejects({ s: Symbol('x') }, /a symbol is not JSON/, '$.s')
    rejects({ deep: { nan: Number.NaN } }, /NaN is not a finite number/, '$.deep.nan')
    rejects({ list: [1, Number.POSITIVE_INFINITY] }, /Infinity is not a finite number/, '$.list[1]')
    rejects([-Infinity], /-Infinity is not a finite number/, '$[0]')
    rejects({ list: [1, undefined] }, /undefined \(or a hole\) in an array/, '$.list[1]')
    // biome-ignore lint: a sparse array on purpose
    rejects({ list: [1, , 3] }, /hole/, '$.list[1]')
    rejects({ when: new Date(0) }, /Date is not plain JSON/, '$.when')
    rejects({ m: new Map() }, /Map is not plain JSON/, '$.m')
    rejects({ s: new Set([1]) }, /Set is not plain JSON/, '$.s')
    rejects({ b: new Uint8Array(2) }, /Uint8Array is not plain JSON/, '$.b')
    rejects({ boxed: new String('x') }, /String is not plain JSON/, '$.boxed')
    class Point {
      x = 1
    }
    rejects({ p: new Point() }, /Point is not plain JSON/, '$.p')
    rejects({ e: new Error('x') }, /Error is not plain JSON/, '$.e')
    // At the root there is no field to omit: the advice is null.
    rejects(undefined, /^\$: undefined is not JSON; use null for "no value"/, '$')
  })

  it('S6.1 a cycle is rejected with the path where it closes', () => {
    const a: Record<string, unknown> = { x: {} }
    ;(a.x as Record<string, unknown>).back = a
    rejects(a, /cycle/, '$.x.back')
    const list: unknown[] = []
    list.push(list)
    rejects(list, /cycle/, '$[0]')
  })

  it('S6.1 a shared (non-cyclic) sub-object is fine', () => {
    const shared = { v: 1 }
    expect(materializeJson({ a: shared, b: shared })).toEqual({ a: { v: 1 }, b: { v: 1 } })
  })

  it('S6.1 nesting deeper than the limit is rejected instead of overflowing the stack', () => {
    let deep: unknown = 1
    for (let index = 0; index < MAX_JSON_DEPTH + 5; index++) deep = [deep]
    expect(() => materializeJson(deep)).toThrow(/nesting deeper than 256/)
    let ok: unknown = 1
    for (let index = 0; index < MAX_JSON_DEPTH; index++) ok = [ok]
    expect(() => materializeJson(ok)).not.toThrow()
  })

  it('S6.1 a value nested too deeply is refused with a short path (its first and last steps) and what to do', () => {
    let deep: unknown = 'leaf'
    for (let index = 0; index < 300; index++) deep = { d: deep }
    let message = ''
    try {
      materializeJson({ v: deep })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(`$.v${'.d'.repeat(7)}…(244 more)…${'.d'.repeat(4)}: nesting deeper than 256 levels; send a flatter value (a list instead of a chain of nested objects)`)
    let shallow: unknown = 1n
    for (let index = 0; index < 11; index++) shallow = [shallow]
    expect(() => materializeJson(shallow)).toThrow(`$${'[0]'.repeat(11)}: BigInt is not JSON`)
  })

  it('S6.1 symbol keys and non-enumerable properties are not carried', () => {
    const input = { a: 1, [Symbol('hidden')]: 2 }
    Object.defineProperty(input, 'secret', { value: 3, enumerable: false })
    expect(Object.keys(materializeJson(input) as object)).toEqual(['a'])
    expect(Reflect.ownKeys(materializeJson(input) as object)).toEqual(['a'])
  })
})

describe('canonicalJson (S6.1, issue 12)', () => {
  it('S6.1 a later copy reuses what canonicalJson made (the value and what it holds directly) instead of copying it again; any other frozen object is still copied', () => {
    const checked = canonicalJson({ value: { records: [{ id: 1 }] } }) as { value: { records: unknown[] } }
    const run = materializeJson({ status: 'ok', value: checked.value }) as { value: unknown }
    expect(run.value).toBe(checked.value)
    expect(materializeJson([checked])).toEqual([checked])
    expect((materializeJson([checked]) as unknown[])[0]).toBe(checked)
    const frozen = deepFreeze({ a: { b: 1 } })
    const copied = materializeJson({ frozen }) as { frozen: unknown }
    expect(copied.frozen).toEqual(frozen)
    expect(copied.frozen).not.toBe(frozen)
    expect(() => canonicalJson({ value: { when: new Date(0) } })).toThrow(NotJsonError)
  })
})

describe('deepFreeze (S6.4)', () => {
  it('S6.4 freezes nested objects and arrays in place and tolerates cycles', () => {
    const value: Record<string, unknown> = { list: [{ a: 1 }] }
    value.self = value
    expect(deepFreeze(value)).toBe(value)
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen((value.list as object[])[0])).toBe(true)
  })

  it('S6.4 also freezes what hangs under symbol keys and non-enumerable keys', () => {
    const key = Symbol('meta')
    const value: Record<PropertyKey, unknown> = { [key]: { deep: [1] } }
    Object.defineProperty(value, 'hidden', { value: { inner: {} }, enumerable: false })
    deepFreeze(value)
    expect(Object.isFrozen((value[key] as { deep: unknown[] }).deep)).toBe(true)
    expect(Object.isFrozen((value.hidden as { inner: object }).inner)).toBe(true)
  })

  it('S6.4 walks an array by index and its symbol keys: elements and what symbols hold are frozen; a named property is frozen on the array, its object not descended', () => {
    const key = Symbol('meta')
    const list = Object.assign([{ a: [{}] }, 1, , null, [{ b: 2 }]], { [key]: { c: {} }, named: { d: {} } }) as unknown as unknown[] & Record<PropertyKey, unknown>
    deepFreeze(list)
    expect(Object.isFrozen(list)).toBe(true)
    expect(Object.isFrozen(list[0])).toBe(true)
    expect(Object.isFrozen((list[0] as { a: object[] }).a[0])).toBe(true)
    expect(Object.isFrozen((list[4] as object[])[0])).toBe(true)
    expect(Object.isFrozen((list[key] as { c: object }).c)).toBe(true)
    expect(() => (list.named = {})).toThrow(TypeError)
    expect(Object.isFrozen((list.named as { d: object }).d)).toBe(false)
  })
})

describe('materializeJson under a frozen Object.prototype (S6.1)', () => {
  it('S6.1 keys named like Object.prototype members stay own data even when the prototype is frozen', async () => {
    // run in a child realm-like process so freezing the prototype does not leak into other tests
    const { execFileSync } = await import('node:child_process')
    const script = `
      Object.freeze(Object.prototype)
      const { materializeJson } = await import(${JSON.stringify(new URL('../../../src/pipeline/materialize.ts', import.meta.url).href)})
      const out = materializeJson(JSON.parse('{"constructor": 1, "toString": "x", "hasOwnProperty": null, "__proto__": {"a": 1}}'))
      console.log(JSON.stringify([Object.keys(out), out.constructor, out.toString, Object.isFrozen(out)]))
    `
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(output)).toEqual([['constructor', 'toString', 'hasOwnProperty', '__proto__'], 1, 'x', true])
  })
})
