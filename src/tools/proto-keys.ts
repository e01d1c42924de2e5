/**
 * Keys named `__proto__` in a tool's declared parameters or output (SPEC S2, S6.1). No call can
 * use one: arguments with an own `__proto__` key are refused at materialization, zod's object
 * validation drops the key from the value it returns, and the compact form's conversion assigns
 * it, which sets a prototype instead of declaring a field. `defineTool` refuses such a definition.
 */

/** The parts of a zod 4 schema's definition the walk reads. */
interface ZodDef {
  type?: unknown
  shape?: Record<string, unknown>
  element?: unknown
  items?: unknown[]
  valueType?: unknown
  innerType?: unknown
  in?: unknown
  out?: unknown
  options?: unknown[]
  left?: unknown
  right?: unknown
  getter?: () => unknown
}

/** Beyond this nesting the walk stops (a `z.lazy` may build a new schema on every call). */
const MAX_DEPTH = 32

/**
 * The path (`$.list[].__proto__`) of the first key named `__proto__` that `declared` declares,
 * else `undefined`. `declared` is a zod schema (object shapes are followed through arrays,
 * tuples, record values, unions, intersections, pipes, lazy schemas and wrappers) or the compact
 * parameter form, whose only keys are its top-level ones.
 */
export function protoKeyPath(declared: unknown): string | undefined {
  if (typeof declared !== 'object' || declared === null) return undefined
  if (zodDef(declared) === undefined) return Object.hasOwn(declared, '__proto__') ? '$.__proto__' : undefined
  return walk(declared, '$', new Set(), 0)
}

function walk(schema: unknown, path: string, seen: Set<unknown>, depth: number): string | undefined {
  const def = zodDef(schema)
  if (def === undefined || seen.has(schema) || depth > MAX_DEPTH) return undefined
  seen.add(schema)
  const next = (inner: unknown, at: string = path) => walk(inner, at, seen, depth + 1)
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {}
      for (const key of Object.keys(shape)) {
        if (key === '__proto__') return `${path}.__proto__`
        const found = next(shape[key], `${path}.${key}`)
        if (found !== undefined) return found
      }
      return undefined
    }
    case 'array':
      return next(def.element, `${path}[]`)
    case 'tuple':
      return firstFound((def.items ?? []).map((item, index) => () => next(item, `${path}[${index}]`)))
    case 'record':
      return next(def.valueType, `${path}[key]`)
    case 'union':
      return firstFound((def.options ?? []).map((option) => () => next(option)))
    case 'intersection':
      return firstFound([() => next(def.left), () => next(def.right)])
    case 'pipe':
      return firstFound([() => next(def.in), () => next(def.out)])
    case 'lazy':
      return typeof def.getter === 'function' ? next(def.getter()) : undefined
    default:
      // optional, nullable, default, readonly, catch…: the value is their inner type's.
      return def.innerType !== undefined ? next(def.innerType) : undefined
  }
}

function firstFound(searches: readonly (() => string | undefined)[]): string | undefined {
  for (const search of searches) {
    const found = search()
    if (found !== undefined) return found
  }
  return undefined
}

function zodDef(schema: unknown): ZodDef | undefined {
  return (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def
}
