/**
 * typegen: tool schemas → the TypeScript declarations a `run_code` script is checked against
 * (SPEC S9.1, S9.3). A pure function of its input; see `generateDeclarations`.
 */
import { DeclarationsCache, compareNames, declarationsCacheKey } from './declarations-cache.ts'
import { firstSentence } from './doc-comment.ts'
import { jsonSchemaOf } from './json-schema-of.ts'
import { normalizeSchema } from './normalize-schema.ts'
import { renderDeclarations, type ToolDeclarationEntry, type ToolSideType } from './render-declarations.ts'
import { schemaToNode, SchemaShapeError } from './type-node.ts'
import type { JsonSchemaObject } from './normalize-schema.ts'
import type { TypegenOptions, TypegenTool } from './types.ts'

export type { TypegenOptions, TypegenTool } from './types.ts'
export { declarationsCacheKey } from './declarations-cache.ts'

const cache = new DeclarationsCache()
const syncCache = new DeclarationsCache<string>()

/**
 * Generates ONE global declaration file (no `export`: an ambient script `.d.ts`) declaring
 * `interface ToolArgsMap` (tool name → exact argument type, zod input side), `interface
 * ToolOutputMap` (tool name → canonical value type, zod output side), `declare const tools`
 * (`await tools.name(args)` resolves to the output type) and `declare class ToolCallError`
 * (`name`, `toolName`, `message`: all a script may inspect, S9.3). Example entry:
 *
 * ```ts
 * interface ToolArgsMap {
 *   /** Read a text file. *\/
 *   read_file: {
 *     /** Path relative to the workspace. *\/
 *     path: string
 *     /** @default 100 *\/
 *     limit?: number
 *   };
 *   /** List a directory. *\/
 *   list_dir: { dir: string };
 * }
 * ```
 *
 * - Only the tools passed in appear: visibility filtering (S9.1 "every visible tool") is the
 *   caller's job.
 * - Deterministic: tools are sorted by name (code-unit order) and shared aliases are chosen from
 *   the types' content, so the same tools give a byte-identical file whatever their order or
 *   zod's internal `$defs` ids.
 * - Every description is kept whole: tool descriptions become doc comments (`*\/` escaped), field
 *   `.describe()`s field comments, with array items' descriptions (`Items: …`), `@deprecated`,
 *   and the JSON Schema `default` as `@default` on optional keys.
 * - Small objects without comments print on one line; parentheses only where TypeScript needs
 *   them; a type or a documented property repeated across tools is declared once as an alias
 *   (`shared-aliases.ts`). Objects are exact: `additionalProperties: false` without properties is
 *   `Record<string, never>`; `anyOf` arms that only list required keys become a union.
 * - `deferLoading` tools are still callable from code, so they are in both maps, but their doc
 *   comments are cut to the first sentence: deferring exists to keep the definition out of the
 *   model's context, and the declarations must not bring it back in full.
 * - `options.embedded`: the form for the `run_code` description (see `renderDeclarations`): one
 *   `declare const tools` with a method a tool and one-line docs at the end of their line.
 *   `options.compact`: the embedded form with every doc comment cut to its first sentence.
 * - A recursive schema (`z.lazy`, a `$ref` cycle) is a named alias (`type Category = { children:
 *   Category[] }`); unresolved or external `$ref`s type as `unknown`; a malformed schema
 *   (`enum: 'x'`) makes that side of that tool `unknown`, with a comment saying so. Nothing is
 *   ever fetched. An argument's bounds and formats are `@minimum`-style doc notes.
 * - Results are cached by `declarationsCacheKey(tools, options)`; a hit returns identical text.
 *
 * @throws TypeError when two tools share a name (the registry forbids it, S1.4); whatever
 *   `JSON.stringify` throws on a `parametersJsonSchema`/`outputJsonSchema` that is not JSON (an
 *   object cycle, a bigint). Nothing else: schema problems degrade to `unknown`.
 */
export async function generateDeclarations(tools: readonly TypegenTool[], options: TypegenOptions = {}): Promise<string> {
  const { key, render } = plan(tools, options)
  return cache.getOrCreate(key, async () => render())
}

/**
 * {@link generateDeclarations} for callers that cannot wait: the same text, byte for byte, with
 * its own cache. For descriptions a framework reads synchronously (an AI SDK tool's
 * `description`). Throws what `generateDeclarations` rejects with.
 */
export function generateDeclarationsSync(tools: readonly TypegenTool[], options: TypegenOptions = {}): string {
  const { key, render } = plan(tools, options)
  return syncCache.getOrCreate(key, render)
}

function plan(tools: readonly TypegenTool[], options: TypegenOptions): { key: string; render: () => string } {
  assertUniqueNames(tools)
  const sorted = [...tools].sort((a, b) => compareNames(a.name, b.name))
  const compact = options.compact === true
  return {
    key: declarationsCacheKey(sorted, options),
    render: () => renderDeclarations(sorted.map((tool) => declarationEntry(tool, compact)), compact || options.embedded === true),
  }
}

function declarationEntry(tool: TypegenTool, compactFile: boolean): ToolDeclarationEntry {
  const compact = compactFile || tool.deferLoading === true
  // Bounds and formats matter where the script writes values: in the arguments, not the output.
  const args = normalizeSchema(jsonSchemaOf(tool, 'args'), { compact, constraints: true })
  const output = normalizeSchema(jsonSchemaOf(tool, 'output'), { compact })
  return {
    name: tool.name,
    description: compact ? firstSentence(tool.description) : tool.description.trim(),
    args: sideType(args.schema),
    output: sideType(output.schema),
    outputDescription: output.description,
  }
}

/** The type of one side, or `undefined` (printed `unknown`, with a note) for a malformed schema. */
function sideType(schema: JsonSchemaObject): ToolSideType {
  try {
    return schemaToNode(schema)
  } catch (error) {
    if (error instanceof SchemaShapeError) return undefined
    throw error
  }
}

function assertUniqueNames(tools: readonly TypegenTool[]): void {
  const seen = new Set<string>()
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new TypeError(`generateDeclarations: duplicate tool name "${tool.name}"`)
    seen.add(tool.name)
  }
}
