/**
 * How the script's `console` writes a value it is given, so that no value changes silently in
 * a log (issue 11, SPEC S9.7): JSON where JSON holds the value as it is (`{"a":1,"b":[true]}`,
 * strings quoted inside values), and what the value is where JSON would change or drop it: `NaN`,
 * `-0`, `Infinity`, `undefined` (also as an element or a property), `10n`, `Symbol(s)`,
 * `[Function: f]`, `Map(1) {"a" => 1}`, `Set(2) {1,2}`, `Uint8Array(2) [1,2]`, `[TypeError: boom]`,
 * `/a+/g`, `Point {"x":1}`, `[Circular]`, `<empty>` for a hole, `Invalid Date`, `[getter threw
 * Error: …]` for a property that could not be read, `[unreadable: Error: …]` for a value whose
 * proxy trap or `toJSON` threw. `toJSON` is called as JSON calls it (with `''` for its key), a
 * Date's own as its quoted ISO text, and boxed primitives are unwrapped (`new Number(5)` is `5`).
 * Nested deeper than {@link MAX_DEPTH} an object is `[Object]`/`[Array]`; past {@link MAX_ITEMS}
 * entries a container says how many more; the text stops at `maxLength` characters, then `…`.
 * Uses only captured built-ins (see `intrinsics.ts`). Getters, proxies and `toJSON` run here,
 * inside the isolate under its limits; what they throw costs only the value they belong to.
 */
import {
  ArrayIsArray,
  BOXED_VALUE_OF,
  DatePrototypeGetTime,
  DatePrototypeToISOString,
  DatePrototypeToJSON,
  JSONStringify,
  MapPrototypeForEach,
  MapPrototypeGetSize,
  NumberIsFinite,
  ObjectCreate,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectKeys,
  ObjectPrototype,
  ReflectApply,
  RegExpPrototypeToString,
  SetPrototypeForEach,
  SetPrototypeGetSize,
  StringCtor,
  StringPrototypeSlice,
  TypedArrayPrototypeGetLength,
  TypedArrayPrototypeGetToStringTag,
} from './intrinsics.ts'
import { builtinKind, constructorNameOf } from './builtin-kind.ts'

/** Levels of nesting printed in full. */
export const MAX_DEPTH = 12
/** Entries of one array, object, Map or Set printed before `… N more`. */
export const MAX_ITEMS = 1_000
/** Thrown to stop building once the text is long enough. */
const FULL = ObjectCreate(null) as object
/** Thrown to leave a container's entries after {@link MAX_ITEMS}. */
const ENOUGH = ObjectCreate(null) as object

/** `value` as one log item (SPEC S9.7: logs the model reads): a string as it is, anything else as the file comment says. */
export function formatLogValue(value: unknown, maxLength: number): string {
  if (typeof value === 'string') return value
  let text = ''
  /** The objects being written, outermost first: meeting one again is a cycle (a null-prototype record: an array's index setters can be poisoned). */
  const holders = ObjectCreate(null) as Record<number, object>
  let held = 0

  function add(part: string): void {
    text += part
    if (text.length > maxLength) throw FULL
  }

  /** `open`, the first {@link MAX_ITEMS} entries `each` visits, comma-separated, then `close`. */
  function list(open: string, close: string, count: number, each: (visit: (write: () => void) => void) => void): void {
    add(open)
    let index = 0
    try {
      each((writeEntry) => {
        // A Map's or Set's forEach is left at the first entry past the limit.
        if (index === MAX_ITEMS) throw ENOUGH
        if (index > 0) add(',')
        writeEntry()
        index++
      })
    } catch (stopped) {
      if (stopped !== ENOUGH) throw stopped
    }
    if (count > MAX_ITEMS) add(`,… ${count - MAX_ITEMS} more`)
    add(close)
  }

  function write(item: unknown, depth: number): void {
    switch (typeof item) {
      case 'string':
        return add(JSONStringify(item))
      case 'number':
        return add(item === 0 && 1 / item < 0 ? '-0' : NumberIsFinite(item) ? JSONStringify(item) : StringCtor(item))
      case 'bigint':
        return add(`${StringCtor(item)}n`)
      case 'symbol':
        return add(StringCtor(item))
      case 'undefined':
        return add('undefined')
      case 'boolean':
        return add(item ? 'true' : 'false')
      case 'function':
        return add(functionText(item as (...args: unknown[]) => unknown))
    }
    if (item === null) return add('null')
    const object = item as object
    for (let index = 0; index < held; index++) if (holders[index] === object) return add('[Circular]')
    // What a proxy's trap, a toJSON or a poisoned getter throws costs this value only.
    const mark = text.length
    holders[held++] = object
    try {
      writeObject(object, depth)
    } catch (thrown) {
      if (thrown === FULL || thrown === ENOUGH) throw thrown
      text = StringPrototypeSlice(text, 0, mark)
      add(`[unreadable: ${thrownText(thrown)}]`)
    } finally {
      held--
    }
  }

  /** Writes what `read` answers (a property: its getter may throw, which is shown instead). */
  function writeRead(read: () => unknown, depth: number): void {
    let item: unknown
    try {
      item = read()
    } catch (thrown) {
      return add(`[getter threw ${thrownText(thrown)}]`)
    }
    write(item, depth)
  }

  function writeObject(item: object, depth: number): void {
    if (depth >= MAX_DEPTH) return add(ArrayIsArray(item) ? '[Array]' : '[Object]')
    const kind = builtinKind(item)
    const toJSON = (item as { toJSON?: unknown }).toJSON
    if (kind === 'Date' && toJSON === DatePrototypeToJSON) {
      const time = DatePrototypeGetTime(item as Date)
      return add(time === time ? JSONStringify(DatePrototypeToISOString(item as Date)) : 'Invalid Date')
    }
    // As JSON calls it, but with '' for its key; a toJSON returning new toJSONs ends at MAX_DEPTH.
    if (typeof toJSON === 'function') return write(ReflectApply(toJSON, item, ['']), depth + 1)
    const unboxed = boxedValue(item, kind)
    if (unboxed !== NOT_BOXED) return write(unboxed, depth)
    depth++
    if (ArrayIsArray(item)) {
      const array = item as unknown[]
      const length = array.length
      return list('[', ']', length, (visit) => {
        for (let index = 0; index < length && index <= MAX_ITEMS; index++) visit(() => (ObjectHasOwn(array, index) ? writeRead(() => array[index], depth) : add('<empty>')))
      })
    }
    const tag = TypedArrayPrototypeGetToStringTag(item)
    if (tag !== undefined) {
      const typed = item as unknown as ArrayLike<number | bigint>
      const length = TypedArrayPrototypeGetLength(item)
      return list(`${tag}(${length}) [`, ']', length, (visit) => {
        for (let index = 0; index < length && index <= MAX_ITEMS; index++) visit(() => write(typed[index], depth))
      })
    }
    switch (kind) {
      case 'Map': {
        const size = MapPrototypeGetSize(item as Map<unknown, unknown>)
        return list(`Map(${size}) {`, '}', size, (visit) =>
          MapPrototypeForEach(item as Map<unknown, unknown>, (entry, key) =>
            visit(() => {
              write(key, depth)
              add(' => ')
              write(entry, depth)
            }),
          ),
        )
      }
      case 'Set': {
        const size = SetPrototypeGetSize(item as Set<unknown>)
        return list(`Set(${size}) {`, '}', size, (visit) => SetPrototypeForEach(item as Set<unknown>, (entry) => visit(() => write(entry, depth))))
      }
      case 'Error':
        return add(`[${thrownText(item)}]`)
      case 'RegExp':
        return add(RegExpPrototypeToString(item as RegExp))
      case 'Promise':
      case 'WeakMap':
      case 'WeakSet':
        return add(`${kind} {}`)
    }
    const prototype = ObjectGetPrototypeOf(item) as object | null
    if (prototype !== ObjectPrototype && prototype !== null) add(`${clipName(constructorNameOf(prototype) ?? 'Object')} `)
    const keys = ObjectKeys(item)
    list('{', '}', keys.length, (visit) => {
      for (let index = 0; index < keys.length && index <= MAX_ITEMS; index++) {
        const key = keys[index]!
        visit(() => {
          add(`${JSONStringify(key)}:`)
          writeRead(() => (item as Record<string, unknown>)[key], depth)
        })
      }
    })
  }

  try {
    write(value, 0)
  } catch (stopped) {
    if (stopped !== FULL) throw stopped
    return `${StringPrototypeSlice(text, 0, maxLength)}…`
  }
  return text
}

function clipName(name: string): string {
  return name.length > 100 ? `${StringPrototypeSlice(name, 0, 100)}…` : name
}

const NOT_BOXED = ObjectCreate(null) as object

/** The primitive inside a boxed `String`, `Number`, `Boolean` or `BigInt` of `kind` (JSON unwraps them), else {@link NOT_BOXED}. */
function boxedValue(item: object, kind: string | undefined): unknown {
  const valueOf = kind === undefined ? undefined : BOXED_VALUE_OF[kind]
  if (valueOf === undefined) return NOT_BOXED
  try {
    return valueOf(item)
  } catch {
    return NOT_BOXED // Made with Object.create(String.prototype): an object, not a boxed string.
  }
}

/** `[Function: name]`, `[Function (anonymous)]` when it has none or its `name` cannot be read. */
function functionText(fn: (...args: unknown[]) => unknown): string {
  try {
    const name = (fn as { name?: unknown }).name
    if (typeof name === 'string' && name !== '') return `[Function: ${clipName(name)}]`
  } catch {
    // A throwing name getter: the function is still shown.
  }
  return '[Function (anonymous)]'
}

/** `Name: message` of an error (or what else was thrown); never throws. */
function thrownText(thrown: unknown): string {
  try {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      const name = (thrown as { name?: unknown }).name
      const message = (thrown as { message?: unknown }).message
      if (typeof message === 'string') return `${typeof name === 'string' && name !== '' ? clipName(name) : 'Error'}: ${message.length > 300 ? `${StringPrototypeSlice(message, 0, 300)}…` : message}`
    }
    return StringCtor(thrown)
  } catch {
    return 'a value that could not be described'
  }
}
