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
export const JSONStringify = JSON.stringify
export const JSONParse = JSON.parse
export const OriginalPromise = Promise
export const OriginalError = Error
export const OriginalTypeError = TypeError
export const ObjectCreate = Object.create
export const ObjectFreeze = Object.freeze
export const ObjectDefineProperty = Object.defineProperty
export const ArrayIsArray = Array.isArray
export const NumberIsFinite = Number.isFinite
export const StringCtor = String
export const FunctionPrototypeBind = uncurryThis(capturedBind as (this: Function, thisArg: unknown, ...args: unknown[]) => Function)
export const StringPrototypeSlice = uncurryThis(String.prototype.slice)
export const globalObject: typeof globalThis = globalThis
