/**
 * Which built-in a script's value is (SPEC S9.7, for the console and error descriptions), by
 * identity along its prototype chain: no method of the value runs, only a proxy's
 * `getPrototypeOf` trap. Uses only captured built-ins (see `intrinsics.ts`).
 */
import { DatePrototype, ErrorPrototype, MapPrototype, ObjectGetPrototypeOf, ObjectPrototype, PromisePrototype, RegExpPrototype, SetPrototype, WeakMapPrototype, WeakSetPrototype } from './intrinsics.ts'

/** How far up a prototype chain a built-in is looked for (subclasses of subclasses…). */
export const MAX_CHAIN = 32

/** The built-ins printed by what they hold, looked up by identity along the prototype chain. */
const KINDS: readonly (readonly [prototype: object, kind: string])[] = [
  [DatePrototype, 'Date'],
  [MapPrototype, 'Map'],
  [SetPrototype, 'Set'],
  [ErrorPrototype, 'Error'],
  [RegExpPrototype, 'RegExp'],
  [PromisePrototype, 'Promise'],
  [WeakMapPrototype, 'WeakMap'],
  [WeakSetPrototype, 'WeakSet'],
]

/**
 * Which built-in `item` is by its prototype chain (`Map`, `Set`, `Error`, `RegExp`, `Promise`,
 * `WeakMap`, `WeakSet`), or `undefined`. Runs no script code but a proxy's `getPrototypeOf` trap,
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

