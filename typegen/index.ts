/**
 * typegen: tool schemas → the TypeScript declarations a `run_code` script is checked against
 * (SPEC S9.1, S9.3). A pure function of its input; see `generateDeclarations`.
 */
import { DeclarationsCache, compareNames, declarationsCacheKey } from './declarations-cache.ts'
import { firstSentence } from './doc-comment.ts'
import { jsonSchemaOf } from './json-schema-of.ts'
import { normalizeSchema } from './normalize-schema.ts'
import { MEMBER_INDENT, renderDeclarations, type ToolDeclarationEntry } from './render-declarations.ts'
import { schemaToType } from './schema-to-type.ts'
import type { TypegenOptions, TypegenTool } from './types.ts'

export type { TypegenOptions, TypegenTool } from './types.ts'
export { declarationsCacheKey } from './declarations-cache.ts'

const cache = new DeclarationsCache()

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
 *     limit?: number
 *   };
 * }
 * ```
 *
 * - Only the tools passed in appear: visibility filtering (S9.1 "every visible tool") is the
 *   caller's job.
 * - Deterministic: tools are sorted by name (code-unit order) and every type is inlined, so the
 *   same tools give a byte-identical file whatever their order or zod's internal `$defs` ids.
 * - Descriptions become doc comments (`*\/` escaped); field `.describe()`s become field comments.
 * - `deferLoading` tools are still callable from code, so they are in both maps, but their doc
 *   comments are cut to the first sentence: deferring exists to keep the definition out of the
 *   model's context, and the declarations must not bring it back in full.
 * - `options.compact`: every doc comment cut to its first sentence and a one-line header, for
 *   embedding in the `run_code` tool description.
 * - Recursive schemas type as `unknown` where they recur; unresolved or external `$ref`s type as
 *   `unknown`; a schema json-schema-to-typescript rejects makes that side of that tool `unknown`,
 *   with a comment saying so. Nothing is ever fetched.
 * - Results are cached by `declarationsCacheKey(tools, options)`; a hit returns identical text.
 *
 * @throws TypeError when two tools share a name (the registry forbids it, S1.4); whatever
 *   `JSON.stringify` throws on a `parametersJsonSchema`/`outputJsonSchema` that is not JSON (an
 *   object cycle, a bigint). Nothing else: schema problems degrade to `unknown`.
 */
export async function generateDeclarations(tools: readonly TypegenTool[], options: TypegenOptions = {}): Promise<string> {
  assertUniqueNames(tools)
  const sorted = [...tools].sort((a, b) => compareNames(a.name, b.name))
  const compact = options.compact === true
  return cache.getOrCreate(declarationsCacheKey(sorted, options), async () => {
    const entries = await Promise.all(sorted.map((tool) => declarationEntry(tool, compact)))
    return renderDeclarations(entries, compact)
  })
}

async function declarationEntry(tool: TypegenTool, compactFile: boolean): Promise<ToolDeclarationEntry> {
  const compact = compactFile || tool.deferLoading === true
  const args = normalizeSchema(jsonSchemaOf(tool, 'args'), { compact })
  const output = normalizeSchema(jsonSchemaOf(tool, 'output'), { compact })
  return {
    name: tool.name,
    description: compact ? firstSentence(tool.description) : tool.description.trim(),
    args: await schemaToType(args.schema, MEMBER_INDENT),
    output: await schemaToType(output.schema, MEMBER_INDENT),
    outputDescription: output.description,
  }
}

function assertUniqueNames(tools: readonly TypegenTool[]): void {
  const seen = new Set<string>()
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new TypeError(`generateDeclarations: duplicate tool name "${tool.name}"`)
    seen.add(tool.name)
  }
}
