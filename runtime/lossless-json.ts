/**
 * Lossless JSON for everything that leaves the isolate: tool arguments and the return value
 * (SPEC S6.1: values JSON cannot carry losslessly are rejected clearly, never silently dropped
 * or changed). A refusal names the value's path and what to send instead:
 * `value.byExt is a Map: convert it with Object.fromEntries(map), …`. Uses only captured
 * built-ins (see `intrinsics.ts`).
 */
import {
  ArrayBufferIsView,
  ArrayIsArray,
  BOXED_PROTOTYPES,
  JSONStringify,
  LOSSY_PROTOTYPES,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  NumberIsFinite,
  NumberPrototype,
  NumberPrototypeValueOf,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
  OriginalMap,
  OriginalTypeError,
  StringCtor,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypedArrayPrototypeGetToStringTag,
} from './intrinsics.ts'
import { constructorNameOf, MAX_CHAIN } from './builtin-kind.ts'

/** Where an object sits in the value: its holder and its key there (`undefined` for the root). */
interface Place {
  holder: object | undefined
  key: string
}

/**
 * JSON text of `value`, or a thrown TypeError whose message names the path (rooted at `root`,
 * e.g. `value` or `args`) of the first part JSON would drop or change, and what to do instead:
 * functions, symbols, BigInt, NaN and ±Infinity, `undefined` array elements and holes of sparse
 * arrays, Map, Set, WeakMap, WeakSet, typed arrays, DataView, ArrayBuffer, Promise, RegExp,
 * Error, class instances without `toJSON`, and cycles. Plain objects, null-prototype objects,
 * arrays, boxed primitives and whatever a `toJSON` returns (a Date's string) are fine; an
 * `undefined` object property is dropped as usual (that is how optional fields are written).
 * Getters, proxies and `toJSON` run here, inside the isolate, under its CPU and memory limits;
 * what they throw propagates. Returns `undefined` only when `value` itself is `undefined`.
 */
export function toJsonLossless(value: unknown, root: string): string | undefined {
  if (value === undefined) return undefined
  const places = new OriginalMap<unknown, Place>()

  function describePath(holder: object | undefined, key: string): string {
    let path = ''
    let current: object | undefined = holder
    let segment = key
    for (let depth = 0; current !== undefined && depth < 1_000; depth++) {
      path = formatSegment(current, segment) + path
      const place = MapPrototypeGet(places as Map<unknown, unknown>, current) as Place | undefined
      if (place === undefined) break
      current = place.holder
      segment = place.key
    }
    return root + path
  }

  function refuse(holder: object | undefined, key: string, problem: string): never {
    throw new OriginalTypeError(`${describePath(holder, key)} ${problem}`)
  }

  function replacer(this: object, key: string, item: unknown): unknown {
    // The root's holder is the wrapper JSON.stringify creates, unknown to `places`.
    const holder = MapPrototypeHas(places as Map<unknown, unknown>, this) ? this : undefined
    const type = typeof item
    if (type === 'object' && item !== null) {
      if (MapPrototypeHas(places as Map<unknown, unknown>, item)) checkCycle(holder, key, item as object)
      const problem = lossyObject(item as object)
      if (problem !== undefined) refuse(holder, key, problem)
      const place: Place = { holder, key }
      MapPrototypeSet(places as Map<unknown, unknown>, item, place)
      return item
    }
    if (type === 'function') refuse(holder, key, 'is a function: functions cannot be sent as JSON')
    if (type === 'symbol') refuse(holder, key, 'is a symbol: symbols cannot be sent as JSON')
    if (type === 'bigint') refuse(holder, key, 'is a BigInt: convert it with Number(…) or String(…)')
    if (type === 'number' && !NumberIsFinite(item)) refuse(holder, key, `is ${StringCtor(item)}: JSON would turn it into null`)
    if (item === undefined && holder !== undefined && ArrayIsArray(holder)) {
      refuse(holder, key, ObjectHasOwn(holder, key) ? 'is undefined: JSON would turn it into null; use null' : 'is a hole of a sparse array: JSON would turn it into null; fill it')
    }
    return item
  }

  /** `item` was seen before: fine when shared (a DAG), refused when it is one of its own holders. */
  function checkCycle(holder: object | undefined, key: string, item: object): void {
    let current: object | undefined = holder
    for (let depth = 0; current !== undefined && depth < 10_000; depth++) {
      if (current === item) refuse(holder, key, `refers back to ${describePath((MapPrototypeGet(places as Map<unknown, unknown>, item) as Place).holder, (MapPrototypeGet(places as Map<unknown, unknown>, item) as Place).key)}: a cycle cannot be sent as JSON`)
      const place = MapPrototypeGet(places as Map<unknown, unknown>, current) as Place | undefined
      current = place?.holder
    }
  }

  const text = JSONStringify(value, replacer)
  if (typeof text !== 'string') {
    throw new OriginalTypeError(typeof value === 'object' && value !== null ? `${root} has a toJSON that returned nothing: JSON would send nothing; return a JSON value from it` : `${root} is ${describeType(value)}: it cannot be sent as JSON`)
  }
  return text
}

/** What is wrong with sending `item` as JSON, or `undefined` when it is a plain container. */
function lossyObject(item: object): string | undefined {
  if (ArrayIsArray(item)) return undefined
  let prototype = ObjectGetPrototypeOf(item) as object | null
  if (prototype === ObjectPrototype || prototype === null) return undefined
  if (ArrayBufferIsView(item)) {
    const tag = TypedArrayPrototypeGetToStringTag(item)
    if (tag !== undefined) return `is a ${tag}: convert it with Array.from(…)`
  }
  if (prototype === NumberPrototype) {
    // JSON unwraps a Number object to its number: a non-finite one would become null.
    let number: number
    try {
      number = NumberPrototypeValueOf(item)
    } catch {
      return undefined // Not a Number object (Object.create(Number.prototype)): JSON sends its own fields.
    }
    return NumberIsFinite(number) ? undefined : `is a Number object holding ${StringCtor(number)}: JSON would turn it into null`
  }
  for (let index = 0; index < BOXED_PROTOTYPES.length; index++) if (prototype === BOXED_PROTOTYPES[index]) return undefined
  const own = prototype
  for (let depth = 0; prototype !== null && prototype !== ObjectPrototype && depth < MAX_CHAIN; depth++) {
    for (let index = 0; index < LOSSY_PROTOTYPES.length; index++) {
      const entry = LOSSY_PROTOTYPES[index]!
      if (entry[0] === prototype) return `is ${entry[1]}: ${entry[2]}`
    }
    prototype = ObjectGetPrototypeOf(prototype) as object | null
  }
  return `is an instance of ${className(own)} with no toJSON: JSON would keep only its own fields; send a plain object ({ ...instance }) or give the class a toJSON method`
}


function describeType(value: unknown): string {
  return typeof value === 'function' ? 'a function' : `a ${typeof value}`
}

function formatSegment(holder: object, key: string): string {
  if (ArrayIsArray(holder)) return `[${key}]`
  if (isIdentifier(key)) return `.${key}`
  return `[${JSONStringify(StringPrototypeSlice(key, 0, 100))}]`
}

/** ASCII identifier (`byExt`, `$x`, `_1`); no RegExp, whose `exec` a script can replace. */
function isIdentifier(key: string): boolean {
  if (key.length === 0 || key.length > 100) return false
  for (let index = 0; index < key.length; index++) {
    const code = StringPrototypeCharCodeAt(key, index)
    const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 36 || code === 95
    const digit = code >= 48 && code <= 57
    if (!(letter || (digit && index > 0))) return false
  }
  return true
}

/** The class name a refusal names: its constructor's (first 100 characters), else `a class`. */
function className(prototype: object): string {
  const name = constructorNameOf(prototype)
  return name === undefined ? 'a class' : StringPrototypeSlice(name, 0, 100)
}
