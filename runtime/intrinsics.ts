/**
 * Built-ins the runtime relies on, captured when the runtime bundle is evaluated: in a fresh
 * context, before any script code exists. A script may later replace `JSON.stringify`,
 * `Promise.prototype.then`, `Array.prototype.*`, `Symbol.species` or anything else on its own
 * realm; the runtime only ever calls these captured originals, never a property looked up at
 * call time.
 *
 * Rules the rest of `runtime/` follows because of this (poisonable lookups avoided):
 * - no spread, `for…of` or array destructuring (they call `Array.prototype[Symbol.iterator]`);
 * - no `.then`/`.catch` on promises (species and `then` lookups): `await` and captured
 *   constructors only;
 * - internal records are object literals or `Object.create(null)` maps, read by own keys only;
 * - property descriptors are null-prototype objects ({@link defineData}): an inherited `get` or
 *   `set` would otherwise turn a data descriptor into an invalid one and make the define throw;
 * - the runtime's own `await` of the script's result cannot be diverted (`ownConstructor`);
 * - method calls go through {@link uncurryThis}, which binds the captured `Function.prototype.call`.
 */

const capturedCall = Function.prototype.call
const capturedBind = Function.prototype.bind

/**
 * `uncurryThis(String.prototype.slice)(s, 0, 10)` calls the original method without looking up
 * `call` or the method on the receiver at call time.
 */
export function uncurryThis<T, A extends unknown[], R>(method: (this: T, ...args: A) => R): (self: T, ...args: A) => R {
  return Reflect.apply(capturedBind, capturedCall, [method]) as (self: T, ...args: A) => R
}

export const ReflectApply = Reflect.apply
export const ReflectConstruct = Reflect.construct
export const JSONStringify = JSON.stringify
export const JSONParse = JSON.parse
export const OriginalPromise = Promise
/** `Promise.prototype.then`, for {@link ReflectApply} (the runtime never looks `then` up on a promise). */
export const PromisePrototypeThen = Promise.prototype.then
export const OriginalError = Error
export const OriginalTypeError = TypeError
export const OriginalRangeError = RangeError
export const ObjectCreate = Object.create
export const ObjectFreeze = Object.freeze
export const ObjectDefineProperty = Object.defineProperty
export const ArrayIsArray = Array.isArray
export const NumberIsFinite = Number.isFinite
export const StringCtor = String
export const FunctionPrototypeBind = uncurryThis(capturedBind as (this: Function, thisArg: unknown, ...args: unknown[]) => Function)
export const StringPrototypeSlice = uncurryThis(String.prototype.slice)
export const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt)
export const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf) as (self: string, search: string) => number
export const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase) as (self: string) => string
export const OriginalProxy = Proxy
export const globalObject: typeof globalThis = globalThis
export const ObjectGetPrototypeOf = Object.getPrototypeOf
export const ObjectHasOwn = Object.hasOwn
export const ObjectPrototype = Object.prototype
export const ArrayPrototype = Array.prototype
export const ArrayBufferIsView = ArrayBuffer.isView
export const OriginalMap = Map
export const MapPrototypeGet = uncurryThis(Map.prototype.get) as (map: Map<unknown, unknown>, key: unknown) => unknown
export const MapPrototypeSet = uncurryThis(Map.prototype.set) as (map: Map<unknown, unknown>, key: unknown, value: unknown) => Map<unknown, unknown>
export const MapPrototypeDelete = uncurryThis(Map.prototype.delete) as (map: Map<unknown, unknown>, key: unknown) => boolean
export const MapPrototypeHas = uncurryThis(Map.prototype.has) as (map: Map<unknown, unknown>, key: unknown) => boolean
export const ObjectKeys = Object.keys
export const MapPrototype = Map.prototype
export const MapPrototypeForEach = uncurryThis(Map.prototype.forEach) as (map: Map<unknown, unknown>, each: (value: unknown, key: unknown) => void) => void
export const MapPrototypeGetSize = uncurryThis(Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get as (this: Map<unknown, unknown>) => number)
export const SetPrototype = Set.prototype
export const SetPrototypeForEach = uncurryThis(Set.prototype.forEach) as (set: Set<unknown>, each: (value: unknown) => void) => void
export const SetPrototypeGetSize = uncurryThis(Object.getOwnPropertyDescriptor(Set.prototype, 'size')!.get as (this: Set<unknown>) => number)
export const RegExpPrototype = RegExp.prototype
export const RegExpPrototypeToString = uncurryThis(RegExp.prototype.toString) as (regExp: RegExp) => string
export const ErrorPrototype = Error.prototype
export const DatePrototype = Date.prototype
export const DatePrototypeToJSON = Date.prototype.toJSON
export const PromisePrototype = Promise.prototype
export const WeakMapPrototype = WeakMap.prototype
export const WeakSetPrototype = WeakSet.prototype
export const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime) as (date: Date) => number
export const DatePrototypeToISOString = uncurryThis(Date.prototype.toISOString) as (date: Date) => string
export const StringPrototype = String.prototype
export const NumberPrototype = Number.prototype
export const NumberPrototypeValueOf = uncurryThis(Number.prototype.valueOf) as (self: object) => number
export const BooleanPrototype = Boolean.prototype
export const BigIntPrototype = BigInt.prototype
/**
 * `valueOf` of the boxed primitives, by `builtinKind`'s name of their kind (a null-prototype
 * record: nothing a script puts on `Object.prototype` is found). Each throws for anything not
 * truly boxed.
 */
export const BOXED_VALUE_OF: Readonly<Record<string, (boxed: object) => unknown>> = Object.setPrototypeOf(
  {
    String: uncurryThis(String.prototype.valueOf),
    Number: uncurryThis(Number.prototype.valueOf),
    Boolean: uncurryThis(Boolean.prototype.valueOf),
    BigInt: uncurryThis(BigInt.prototype.valueOf),
  },
  null,
) as Readonly<Record<string, (boxed: object) => unknown>>
/** `%TypedArray%.prototype`, the shared prototype of every typed array's own prototype. */
export const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object
/** The `length` getter of typed arrays (an own `length` a script defines is not read; throws for anything else). */
export const TypedArrayPrototypeGetLength = uncurryThis(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length')!.get as (this: unknown) => number)
/** The `Symbol.toStringTag` getter of typed arrays: their constructor name, `undefined` for anything else (never throws). */
export const TypedArrayPrototypeGetToStringTag = uncurryThis(
  Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag)!.get as (this: unknown) => string | undefined,
)
/**
 * Prototypes of built-ins whose JSON is not what they hold, each with what the script should
 * send instead (SPEC S6.1). Looked up by identity along a value's prototype chain, so subclasses
 * are caught too and no method of the value is ever called.
 */
export const LOSSY_PROTOTYPES: readonly (readonly [prototype: object, what: string, advice: string])[] = [
  [Map.prototype, 'a Map', 'convert it with Object.fromEntries(map), or Array.from(map) for non-string keys'],
  [Set.prototype, 'a Set', 'convert it with Array.from(set)'],
  [WeakMap.prototype, 'a WeakMap', 'it holds nothing JSON can carry'],
  [WeakSet.prototype, 'a WeakSet', 'it holds nothing JSON can carry'],
  [DataView.prototype, 'a DataView', 'convert its bytes with Array.from(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))'],
  [ArrayBuffer.prototype, 'an ArrayBuffer', 'convert it with Array.from(new Uint8Array(buffer))'],
  [Promise.prototype, 'a Promise', 'await it first'],
  [RegExp.prototype, 'a RegExp', 'send its source (regexp.source)'],
  [Error.prototype, 'an Error', 'send { name: error.name, message: error.message }'],
  [Function.prototype, 'a function', 'functions cannot be sent'],
  [BigInt.prototype, 'a BigInt object', 'convert it with Number(…) or String(…)'],
  [Symbol.prototype, 'a Symbol object', 'symbols cannot be sent as JSON'],
  // Reached only when no toJSON turned it into a string (another value's toJSON returned it, or
  // Date.prototype.toJSON is gone).
  [Date.prototype, 'a Date that no toJSON turned into a string (JSON calls toJSON once)', 'send date.toISOString()'],
]
/** Boxed primitives: JSON unwraps them losslessly. */
export const BOXED_PROTOTYPES: readonly object[] = [StringPrototype, NumberPrototype, BooleanPrototype]

const sharedDescriptor: PropertyDescriptor = { value: undefined, enumerable: false, writable: false, configurable: false }
Object.setPrototypeOf(sharedDescriptor, null)

/** Attribute bits of {@link defineData}. */
export const ENUMERABLE = 1
export const WRITABLE = 2
export const CONFIGURABLE = 4

/**
 * `Object.defineProperty(target, key, { value, …attributes })` with a null-prototype descriptor,
 * so nothing a script puts on `Object.prototype` (a `get`, `set` or `value` accessor) is read as
 * part of it. `attributes` is a sum of {@link ENUMERABLE}, {@link WRITABLE}, {@link CONFIGURABLE}.
 */
export function defineData(target: object, key: PropertyKey, value: unknown, attributes: number): void {
  // One descriptor reused for every define (defines are synchronous): no garbage per define,
  // which matters for the ToolCallErrors of a burst of refused calls.
  const descriptor = sharedDescriptor
  descriptor.value = value
  descriptor.enumerable = (attributes & ENUMERABLE) !== 0
  descriptor.writable = (attributes & WRITABLE) !== 0
  descriptor.configurable = (attributes & CONFIGURABLE) !== 0
  try {
    ObjectDefineProperty(target, key, descriptor)
  } finally {
    descriptor.value = undefined
  }
}
