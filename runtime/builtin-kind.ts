/**
 * Which built-in a script's value is (SPEC S9.7, for the console and error descriptions), by
 * identity along its prototype chain: no method of the value runs, only a proxy's
 * `getPrototypeOf` trap. Uses only captured built-ins (see `intrinsics.ts`).
 */
import {
  BigIntPrototype,
  BooleanPrototype,
  DatePrototype,
  ErrorPrototype,
  MapPrototype,
  NumberPrototype,
  ObjectGetPrototypeOf,
  ObjectPrototype,
  PromisePrototype,
  RegExpPrototype,
  SetPrototype,
  StringPrototype,
  WeakMapPrototype,
  WeakSetPrototype,
} from './intrinsics.ts'

/** How far up a prototype chain a built-in is looked for (subclasses of subclasses…). */
export const MAX_CHAIN = 32

/** The built-ins printed by what they hold (boxed primitives by their value), looked up by identity along the prototype chain. */
const KINDS: readonly (readonly [prototype: object, kind: string])[] = [
  [DatePrototype, 'Date'],
  [MapPrototype, 'Map'],
  [SetPrototype, 'Set'],
  [ErrorPrototype, 'Error'],
  [RegExpPrototype, 'RegExp'],
  [PromisePrototype, 'Promise'],
  [WeakMapPrototype, 'WeakMap'],
  [WeakSetPrototype, 'WeakSet'],
  [StringPrototype, 'String'],
  [NumberPrototype, 'Number'],
  [BooleanPrototype, 'Boolean'],
  [BigIntPrototype, 'BigInt'],
]

/**
 * Which built-in `item` is by its prototype chain (`Date`, `Map`, `Set`, `Error`, `RegExp`,
 * `Promise`, `WeakMap`, `WeakSet`, and the boxed `String`, `Number`, `Boolean`, `BigInt`), or
 * `undefined`. Runs no script code but a proxy's `getPrototypeOf` trap,
 * which may throw.
 */
export function builtinKind(item: object): string | undefined {
  let prototype = ObjectGetPrototypeOf(item) as object | null
  for (let depth = 0; prototype !== null && prototype !== ObjectPrototype && depth < MAX_CHAIN; depth++) {
    for (let index = 0; index < KINDS.length; index++) if (KINDS[index]![0] === prototype) return KINDS[index]![1]
    prototype = ObjectGetPrototypeOf(prototype) as object | null
  }
  return undefined
}

/** Whether `value` is an Error (by its prototype chain: see {@link builtinKind}). */
export function isError(value: unknown): boolean {
  try {
    return typeof value === 'object' && value !== null && builtinKind(value) === 'Error'
  } catch {
    // A proxy whose getPrototypeOf trap throws: not an Error for this purpose.
    return false
  }
}

/** The name of the constructor of instances of `prototype`, `undefined` when it has none or it cannot be read. Never throws. */
export function constructorNameOf(prototype: object): string | undefined {
  try {
    const name = (prototype as { constructor?: { name?: unknown } }).constructor?.name
    if (typeof name === 'string' && name !== '') return name
  } catch {
    // A throwing getter: the name is only decoration.
  }
  return undefined
}
