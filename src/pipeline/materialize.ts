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
  try {
    return copy(input, [], 0, false)
  } catch (error) {
    if (error instanceof Failure) throw new NotJsonError(error.message, jsonPath(error.path.reverse()))
    throw error
  }
}

/** Why an own `__proto__` key of a call's arguments is refused ({@link materializeArguments}). */
export const PROTO_KEY_REFUSED =
  "a key named __proto__ cannot be passed in tool arguments (an object schema's validation drops it, and JavaScript that copies it by assignment sets a prototype instead); rename the key"

/**
 * {@link materializeJson} of a call's arguments (S6.1), which also refuses an own `__proto__` key
 * at any depth: a zod object parse of the arguments leaves that key out (it assigns keys to a
 * fresh object), so the tool would run without it, and where a schema passes it through
 * (`z.any()`, `z.unknown()`, an MCP tool's JSON Schema) a tool that copies it by assignment
 * (`Object.assign`, `out[key] = value`) sets its copy's prototype instead; refused, not dropped. A value
 * {@link canonicalJson} made is checked again here rather than reused.
 * @throws NotJsonError as {@link materializeJson}, and for a `__proto__` key.
 */
export function materializeArguments(input: unknown): JsonValue {
  try {
    return copy(input, [], 0, true)
  } catch (error) {
    if (error instanceof Failure) throw new NotJsonError(error.message, jsonPath(error.path.reverse()))
    throw error
  }
}

/**
 * Values {@link canonicalJson} made: fresh, deep-frozen JSON that a later copy takes as it is
 * instead of copying again. Only this module adds to it; a frozen object is never unfrozen.
 */
const CANONICAL = new WeakSet<object>()

/**
 * {@link materializeJson}, whose result (and each object it holds directly) a later `materializeJson` reuses instead of
 * copying it again: for a large value that goes through the pipeline right after it was checked
 * (a `run_code` run's value: a 7 MB object of 450,000 keys took 0.5 s a copy on the host's thread).
 * @throws NotJsonError as {@link materializeJson}.
 */
export function canonicalJson(input: unknown): JsonValue {
  const copied = materializeJson(input)
  if (typeof copied !== 'object' || copied === null) return copied
  CANONICAL.add(copied)
  // And what it holds directly: a value checked where it sits (`{ value }`) is reused alone.
  for (const item of Object.values(copied)) if (typeof item === 'object' && item !== null) CANONICAL.add(item)
  return copied
}

/** Segments a long JSON path keeps at its start and at its end; a path of no more than both is shown whole. */
const PATH_HEAD_SEGMENTS = 8
const PATH_TAIL_SEGMENTS = 4

/**
 * `$` and the path's segments (`.key`, `[index]`); a longer path (a value nested hundreds deep)
 * keeps its first {@link PATH_HEAD_SEGMENTS} and last {@link PATH_TAIL_SEGMENTS} around `…(N more)…`.
 */
function jsonPath(segments: string[]): string {
  const hidden = segments.length - PATH_HEAD_SEGMENTS - PATH_TAIL_SEGMENTS
  if (hidden <= 0) return `$${segments.join('')}`
  return `$${segments.slice(0, PATH_HEAD_SEGMENTS).join('')}…(${hidden} more)…${segments.slice(-PATH_TAIL_SEGMENTS).join('')}`
}

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype))

/**
 * A rejection on its way up: each level prepends its own key, so the JSON path is only built
 * when something is rejected (the successful copy, which is the hot path, builds no strings).
 */
class Failure {
  readonly message: string
  readonly path: string[] = []
  constructor(message: string) {
    this.message = message
  }
}

/**
 * `ancestors[0..depth)` are the containers being copied above `value`: a stack rather than a
 * Set, since JSON is shallow (a lookup costs `depth` comparisons, nothing to add or delete), so a
 * 64 KB result of 806 records copies in about 0.6 of the time (issue 12).
 */
function copy(value: unknown, ancestors: object[], depth: number, noProtoKey: boolean): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new Failure(`${value} is not a finite number; JSON cannot carry it`)
      return value
    case 'bigint':
      throw new Failure('BigInt is not JSON; pass it as a string or a number')
    case 'undefined':
      // At the root there is no field to omit: a tool that returns nothing returns null.
      throw new Failure(depth === 0 ? 'undefined is not JSON; use null for "no value"' : 'undefined is not JSON; omit the field or use null')
    case 'function':
      throw new Failure('a function is not JSON')
    case 'symbol':
      throw new Failure('a symbol is not JSON')
  }
  if (value === null) return null
  const object = value as object
  if (!noProtoKey && Object.isFrozen(object) && CANONICAL.has(object)) return object as JsonValue
  if (depth >= MAX_JSON_DEPTH) throw new Failure(`nesting deeper than ${MAX_JSON_DEPTH} levels; send a flatter value (a list instead of a chain of nested objects)`)
  for (let index = 0; index < depth; index++) if (ancestors[index] === object) throw new Failure('a cycle (the value contains itself)')
  ancestors[depth] = object
  if (Array.isArray(object)) {
    const length = object.length
    const out: JsonValue[] = new Array(length)
    for (let index = 0; index < length; index++) {
      try {
        const item = (object as unknown[])[index]
        if (item === undefined) throw new Failure('undefined (or a hole) in an array is not JSON; use null')
        out[index] = copy(item, ancestors, depth + 1, noProtoKey)
      } catch (error) {
        if (error instanceof Failure) error.path.push(`[${index}]`)
        throw error
      }
    }
    return Object.freeze(out) as JsonValue[]
  }
  const proto = Object.getPrototypeOf(object)
  if (proto !== Object.prototype && proto !== null) {
    const kind = (object as { constructor?: { name?: unknown } }).constructor?.name
    throw new Failure(`${typeof kind === 'string' && kind ? kind : 'a non-plain object'} is not plain JSON; pass a plain object, array or string`)
  }
  const out: Record<string, JsonValue> = {}
  for (const key of Object.keys(object)) {
    let item: unknown
    try {
      if (noProtoKey && key === '__proto__') throw new Failure(PROTO_KEY_REFUSED)
      item = (object as Record<string, unknown>)[key]
      if (item === undefined) continue
      item = copy(item, ancestors, depth + 1, noProtoKey)
    } catch (error) {
      if (error instanceof Failure) error.path.push(`.${key}`)
      throw error
    }
    // A "__proto__" key must stay data and never swap the copy's prototype, and a key that
    // Object.prototype already has ("constructor", "toString") must not trip over a frozen
    // prototype: define those. Every other key is a plain assignment on a fresh object (fast).
    if (PROTOTYPE_KEYS.has(key)) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
    else out[key] = item as JsonValue
  }
  return Object.freeze(out)
}

/**
 * Deep-freeze a value in place and return it (S6.4). Cycles are safe. The set of visited objects
 * is only made once an object holds another object: a flat record (most arguments) is frozen
 * without allocating anything.
 *
 * An array is walked by index (below its `length`) and its symbol keys, not by the names of its
 * own properties: listing them makes a string per element (`Object.getOwnPropertyNames` of a
 * 2,000,000-element array took 0.5-1 s of the host's thread; the index walk 1 ms). So a non-index
 * named property of an array, which JSON cannot carry and `materializeJson` never makes, is frozen
 * on the array, but an object it holds is not descended into.
 */
export function deepFreeze<T>(value: T, seen?: WeakSet<object>): T {
  if (typeof value !== 'object' || value === null || seen?.has(value)) return value
  seen?.add(value)
  Object.freeze(value)
  if (Array.isArray(value)) {
    const length = value.length
    for (let index = 0; index < length; index++) {
      const child: unknown = value[index]
      if (typeof child === 'object' && child !== null) deepFreeze(child, (seen ??= new WeakSet([value])))
    }
    for (const key of Object.getOwnPropertySymbols(value)) deepFreeze((value as unknown as Record<symbol, unknown>)[key], (seen ??= new WeakSet([value])))
    return value
  }
  // Every own key Reflect.ownKeys lists, from two lists: Reflect.ownKeys itself costs about
  // 0.4 µs on a two-key record, these two together about 0.2 µs (issue 12).
  const names = Object.getOwnPropertyNames(value)
  const symbols = Object.getOwnPropertySymbols(value)
  const count = names.length + symbols.length
  for (let index = 0; index < count; index++) {
    const key = index < names.length ? names[index]! : symbols[index - names.length]!
    const child = (value as Record<PropertyKey, unknown>)[key]
    if (typeof child === 'object' && child !== null) deepFreeze(child, (seen ??= new WeakSet([value])))
  }
  return value
}

