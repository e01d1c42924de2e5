/**
 * Cache of generated declaration files (S9.1): the `run_code` path asks for the declarations on
 * every run, and a large tool set costs milliseconds to generate. Keyed by a hash of
 * everything the output depends on, so a hit is always byte-identical to a fresh generation.
 */
import { createHash } from 'node:crypto'
import { jsonSchemaOf } from './json-schema-of.ts'
import type { TypegenOptions, TypegenTool } from './types.ts'

/** Bump when the output format changes, so keys computed by an older version never match. */
const FORMAT_VERSION = 2
/** Declaration files kept; the least recently used one is evicted past this. */
export const DECLARATIONS_CACHE_SIZE = 32

/**
 * A stable key (hex SHA-256) of what `generateDeclarations(tools, options)` depends on: the format
 * version, `compact`, `embedded`, and per tool (sorted by name) its name, description, `deferLoading` and both
 * JSON Schemas. Registration order does not change it. Throws only what `JSON.stringify` throws
 * on a non-JSON `parametersJsonSchema`/`outputJsonSchema` (a cycle, a bigint).
 */
export function declarationsCacheKey(tools: readonly TypegenTool[], options: TypegenOptions = {}): string {
  const parts = [...tools]
    .sort((a, b) => compareNames(a.name, b.name))
    .map((tool) => [tool.name, tool.description, tool.deferLoading === true, jsonSchemaOf(tool, 'args'), jsonSchemaOf(tool, 'output')])
  return createHash('sha256')
    .update(JSON.stringify([FORMAT_VERSION, options.compact === true, options.embedded === true, parts]))
    .digest('hex')
}

/** Code-unit order: locale-independent, so the output cannot depend on the host's ICU settings. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * A small LRU map from key to the generation: a pending or settled promise (`generateDeclarations`)
 * or the text itself (`generateDeclarationsSync`). Rejections and throws are not kept.
 */
export class DeclarationsCache<T = Promise<string>> {
  readonly #entries = new Map<string, T>()

  /** The cached generation for `key`, or the result of `generate()`, which is then cached. */
  getOrCreate(key: string, generate: () => T): T {
    const hit = this.#entries.get(key)
    if (hit !== undefined) {
      this.#entries.delete(key) // re-insert: Map order is the recency order
      this.#entries.set(key, hit)
      return hit
    }
    const created = generate()
    this.#entries.set(key, created)
    if (created instanceof Promise) created.catch(() => this.#entries.delete(key))
    while (this.#entries.size > DECLARATIONS_CACHE_SIZE) {
      this.#entries.delete(this.#entries.keys().next().value!)
    }
    return created
  }
}
