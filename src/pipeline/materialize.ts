/**
 * Materialize and freeze (SPEC S6.1, S6.4): turn an untrusted value into lossless, deep-frozen
 * JSON in one pass, so policy, guards and the tool body all see one immutable value.
 */
import { NotJsonError } from '../errors/ptc-error.ts'
import type { JsonValue } from '../tools/types.ts'

/** Nesting deeper than this is rejected rather than risking a stack overflow on hostile input. */
export const MAX_JSON_DEPTH = 256

/**
 * Copy `input` into fresh, deep-frozen JSON. Every property is read exactly once (a getter that
 * answers differently on each read is read once, and a Proxy's `get` trap runs once per key).
 * Own keys such as `__proto__` become plain data properties: no prototype of the host changes.
 * `undefined` object properties are dropped, as JSON does.
 *
 * @throws NotJsonError naming the JSON path, for BigInt, functions, symbols, NaN/±Infinity,
 *   `undefined` or holes in arrays, cycles, non-plain objects (Date, Map, class instances) and
 *   nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function materializeJson(input: unknown): JsonValue {
  return copy(input, '$', new Set(), 0)
}

function copy(value: unknown, path: string, ancestors: Set<object>, depth: number): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(`${value} is not a finite number; JSON cannot carry it`, path)
      return value
    case 'bigint':
      throw new NotJsonError('BigInt is not JSON; pass it as a string or a number', path)
    case 'undefined':
      throw new NotJsonError('undefined is not JSON; omit the field or use null', path)
    case 'function':
      throw new NotJsonError('a function is not JSON', path)
    case 'symbol':
      throw new NotJsonError('a symbol is not JSON', path)
  }
  if (value === null) return null
  const object = value as object
  if (depth >= MAX_JSON_DEPTH) throw new NotJsonError(`nesting deeper than ${MAX_JSON_DEPTH} levels`, path)
  if (ancestors.has(object)) throw new NotJsonError('a cycle (the value contains itself)', path)
  ancestors.add(object)
  try {
    if (Array.isArray(object)) {
      const length = object.length
      const out: JsonValue[] = new Array(length)
      for (let index = 0; index < length; index++) {
        const item = (object as unknown[])[index]
        if (item === undefined) throw new NotJsonError('undefined (or a hole) in an array is not JSON; use null', `${path}[${index}]`)
        out[index] = copy(item, `${path}[${index}]`, ancestors, depth + 1)
      }
      return Object.freeze(out) as JsonValue[]
    }
    const proto = Object.getPrototypeOf(object)
    if (proto !== Object.prototype && proto !== null) {
      const kind = (object as { constructor?: { name?: unknown } }).constructor?.name
      throw new NotJsonError(`${typeof kind === 'string' && kind ? kind : 'a non-plain object'} is not plain JSON; pass a plain object, array or string`, path)
    }
    const out: Record<string, JsonValue> = {}
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key]
      if (item === undefined) continue
      // defineProperty, not assignment: a "__proto__" key stays data and never swaps a prototype.
      Object.defineProperty(out, key, {
        value: copy(item, `${path}.${key}`, ancestors, depth + 1),
        enumerable: true,
        writable: false,
        configurable: false,
      })
    }
    return Object.freeze(out)
  } finally {
    ancestors.delete(object)
  }
}

/** Deep-freeze a value in place and return it (S6.4). Cycles are safe. */
export function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value
  seen.add(value)
  Object.freeze(value)
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen)
  return value
}
