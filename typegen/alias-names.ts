/**
 * Names for the shared aliases of a declaration file (SPEC S9.1): derived from the property or
 * tool they first describe (`current_branch` → `CurrentBranch`, the items of `commits` →
 * `Commit`), unique within the file, and never a name the script's global scope already has:
 * the declarations are an ambient global file, so `type Date = …` would break every check.
 */

/**
 * Global type and value names of TypeScript's ES2025 library (the checker's `lib`), plus the
 * declaration file's own and the isolate's globals. A test compares it with TypeScript's lib files.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(
  (
    'AggregateError AggregateErrorConstructor Array ArrayBuffer ArrayBufferConstructor ' +
    'ArrayBufferLike ArrayBufferTypes ArrayBufferView ArrayConstructor ArrayIterator ArrayLike ' +
    'AsyncGenerator AsyncGeneratorFunction AsyncGeneratorFunctionConstructor AsyncIterable ' +
    'AsyncIterableIterator AsyncIterator AsyncIteratorObject Atomics Awaited BigInt BigInt64Array ' +
    'BigInt64ArrayConstructor BigIntConstructor BigIntToLocaleStringOptions BigUint64Array ' +
    'BigUint64ArrayConstructor Boolean BooleanConstructor BuiltinIteratorReturn CallableFunction ' +
    'Capitalize ClassAccessorDecoratorContext ClassAccessorDecoratorResult ' +
    'ClassAccessorDecoratorTarget ClassDecorator ClassDecoratorContext ClassFieldDecoratorContext ' +
    'ClassGetterDecoratorContext ClassMemberDecoratorContext ClassMethodDecoratorContext ' +
    'ClassSetterDecoratorContext ConcatArray ConstructorParameters DataView DataViewConstructor Date ' +
    'DateConstructor DecoratorContext DecoratorMetadata DecoratorMetadataObject Error ' +
    'ErrorConstructor ErrorOptions EvalError EvalErrorConstructor Exclude Extract ' +
    'FinalizationRegistry FinalizationRegistryConstructor FlatArray Float16Array Float16ArrayConstructor Float32Array ' +
    'Float32ArrayConstructor Float64Array Float64ArrayConstructor Function FunctionConstructor ' +
    'Generator GeneratorFunction GeneratorFunctionConstructor IArguments ImportAssertions ' +
    'ImportAttributes ImportCallOptions ImportMeta Infinity InstanceType Int16Array ' +
    'Int16ArrayConstructor Int32Array Int32ArrayConstructor Int8Array Int8ArrayConstructor Intl ' +
    'Iterable IterableIterator Iterator IteratorObject IteratorObjectConstructor IteratorResult IteratorReturnResult ' +
    'IteratorYieldResult JSON Lowercase Map MapConstructor MapIterator Math MethodDecorator NaN ' +
    'NewableFunction NoInfer NonNullable Number NumberConstructor Object ObjectConstructor Omit ' +
    'OmitThisParameter ParameterDecorator Parameters Partial Pick Promise PromiseConstructor ' +
    'PromiseConstructorLike PromiseFulfilledResult PromiseLike PromiseRejectedResult ' +
    'PromiseSettledResult PromiseWithResolvers PropertyDecorator PropertyDescriptor ' +
    'PropertyDescriptorMap PropertyKey Proxy ProxyConstructor ProxyHandler RangeError ' +
    'RangeErrorConstructor Readonly ReadonlyArray ReadonlyMap ReadonlySet ReadonlySetLike Record ReferenceError ' +
    'ReferenceErrorConstructor Reflect RegExp RegExpConstructor RegExpExecArray RegExpIndicesArray ' +
    'RegExpMatchArray RegExpStringIterator Required ReturnType Set SetConstructor SetIterator ' +
    'SharedArrayBuffer SharedArrayBufferConstructor String StringConstructor StringIterator Symbol ' +
    'SymbolConstructor SyntaxError SyntaxErrorConstructor TemplateStringsArray ThisParameterType ' +
    'ThisType TypeError TypeErrorConstructor TypedPropertyDescriptor URIError URIErrorConstructor ' +
    'Uint16Array Uint16ArrayConstructor Uint32Array Uint32ArrayConstructor Uint8Array ' +
    'Uint8ArrayConstructor Uint8ClampedArray Uint8ClampedArrayConstructor Uncapitalize Uppercase ' +
    'WeakKey WeakKeyTypes WeakMap WeakMapConstructor WeakRef WeakRefConstructor WeakSet ' +
    'WeakSetConstructor ' +
    'ToolArgsMap ToolOutputMap ToolCallError Console'
  ).split(' '),
)

/** Hands out alias names: PascalCase of a hint, numbered when taken (`Force`, `Force2`). */
export class AliasNamer {
  readonly #taken = new Set<string>()

  /** A fresh name for `hint` (a property or tool name); `items`: name one element of it. */
  name(hint: string, options: { items?: boolean } = {}): string {
    let base = pascalCase(options.items ? singular(hint) : hint)
    if (!/^[A-Za-z_$]/.test(base)) base = `T${base}`
    let name = base
    for (let n = 2; this.#taken.has(name) || RESERVED_NAMES.has(name); n++) name = `${base}${n}`
    this.#taken.add(name)
    return name
  }
}

/** `current_branch`, `current-branch`, `currentBranch` → `CurrentBranch`; `''` → `Type`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '')
  const name = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
  return name === '' ? 'Type' : name
}

/** A plain-English singular for naming one element: `commits` → `commit`, `branches` → `branch`. */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`
  if (/(ch|sh|ss|x)es$/i.test(word)) return word.slice(0, -2)
  if (/[^su]s$/i.test(word)) return word.slice(0, -1)
  return word
}
