/**
 * Lossless JSON for everything that leaves the isolate (SPEC S6.1: values JSON cannot carry are
 * rejected clearly rather than silently dropped or changed). Uses only captured built-ins.
 */
import { ArrayIsArray, JSONStringify, NumberIsFinite, ObjectCreate, OriginalTypeError, StringCtor, StringPrototypeSlice } from './intrinsics.ts'

const MAX_MESSAGE_LENGTH = 2_000

/**
 * Replacer that throws on what `JSON.stringify` would drop or change: functions, symbols,
 * non-finite numbers, `undefined` array elements. `undefined` object properties are dropped as
 * usual (that is how optional fields are written in JS). BigInt already throws in stringify.
 */
function losslessReplacer(this: unknown, key: string, value: unknown): unknown {
  const type = typeof value
  if (type === 'function' || type === 'symbol') {
    throw new OriginalTypeError(`a ${type} cannot be converted to JSON${describeKey(key)}`)
  }
  if (type === 'number' && !NumberIsFinite(value)) {
    throw new OriginalTypeError(`the number ${StringCtor(value)} cannot be converted to JSON${describeKey(key)}`)
  }
  if (value === undefined && ArrayIsArray(this)) {
    throw new OriginalTypeError(`an undefined array element cannot be converted to JSON${describeKey(key)}`)
  }
  return value
}

function describeKey(key: string): string {
  return key === '' ? '' : ` (at key "${StringPrototypeSlice(key, 0, 100)}")`
}

/**
 * JSON text of `value`, or a thrown TypeError naming what cannot be carried (cycles, BigInt,
 * functions, symbols, NaN/Infinity). Getters, proxies and `toJSON` run here, inside the isolate,
 * under its CPU and memory limits; whatever they throw propagates to the caller.
 * Returns `undefined` only when `value` itself is `undefined`.
 */
export function toJsonLossless(value: unknown): string | undefined {
  if (value === undefined) return undefined
  const text = JSONStringify(value, losslessReplacer)
  if (typeof text !== 'string') throw new OriginalTypeError(`a ${typeof value} cannot be converted to JSON`)
  return text
}

/** A readable one-line description of any thrown value; never throws (getters may). */
export function describeThrown(thrown: unknown): { name: string; message: string } {
  let name = 'Error'
  let message = ''
  try {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      const candidateName = (thrown as { name?: unknown }).name
      const candidateMessage = (thrown as { message?: unknown }).message
      if (typeof candidateName === 'string' && candidateName !== '') name = candidateName
      message = typeof candidateMessage === 'string' ? candidateMessage : StringCtor(thrown)
    } else {
      message = StringCtor(thrown)
    }
  } catch {
    message = message || 'a value that could not be described'
  }
  return { name: clip(name, 100), message: clip(message, MAX_MESSAGE_LENGTH) }
}

/** JSON of `{ name, message }`, built on a null-prototype object so no `toJSON` is inherited. */
export function errorJson(name: string, message: string): string {
  const record = ObjectCreate(null) as { name: string; message: string }
  record.name = name
  record.message = message
  return JSONStringify(record)
}

export function clip(text: string, max: number): string {
  return text.length > max ? StringPrototypeSlice(text, 0, max) + '…' : text
}
