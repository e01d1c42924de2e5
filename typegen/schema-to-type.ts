/**
 * One normalized JSON Schema → the text of one inline TypeScript type, via json-schema-to-typescript
 * (S9.1). The schema is ref-free and unnamed (see `normalize-schema.ts`), so the compiler emits
 * exactly one declaration, `Root`; its body is lifted out, re-indented and returned.
 */
import { compile, type Options } from 'json-schema-to-typescript'
import type { JsonSchemaObject } from './normalize-schema.ts'

/**
 * Result of `schemaToType`: the type text, or `unknown` when the compiler rejected the schema (the
 * caller says so in a comment; the compiler's message is not shown, it would only be noise to the
 * model reading the declarations).
 */
export type SchemaTypeResult = { kind: 'ok'; text: string } | { kind: 'fallback'; text: 'unknown' }

const ROOT_NAME = 'Root'

/**
 * Compiler options. `ignoreMinAndMaxItems` keeps `.min(1).max(50)` arrays as `T[]` instead of a
 * union of 50 tuples; `format: false` skips prettier (speed, and no dependence on its version);
 * `$refOptions` forbids every external resolution: the schema has no refs left, and even a bug
 * here must never turn into a file or network read.
 */
const COMPILE_OPTIONS: Partial<Options> = {
  bannerComment: '',
  format: false,
  ignoreMinAndMaxItems: true,
  additionalProperties: false,
  declareExternallyReferenced: true,
  unreachableDefinitions: false,
  unknownAny: true,
  strictIndexSignatures: false,
  enableConstEnums: false,
  $refOptions: { resolve: { external: false, file: false, http: false } } as Options['$refOptions'],
}

/**
 * Compiles `schema` to inline type text, indented for a member of a top-level interface
 * (continuation lines start with `indent`). Never throws: any compiler failure, or output that is
 * not the single expected declaration, yields `{kind: 'fallback', text: 'unknown'}`.
 */
export async function schemaToType(schema: JsonSchemaObject, indent: string): Promise<SchemaTypeResult> {
  let source: string
  try {
    // the compiler deep-clones its input, so the caller's schema is not mutated
    source = await compile(schema as Parameters<typeof compile>[0], ROOT_NAME, COMPILE_OPTIONS)
  } catch {
    return { kind: 'fallback', text: 'unknown' }
  }
  const body = extractRootBody(source)
  if (body === undefined) return { kind: 'fallback', text: 'unknown' }
  return { kind: 'ok', text: layout(collapseDocComments(body), indent) }
}

/** The lines of `Root`'s type, with `export interface Root` / `export type Root =` removed. */
function extractRootBody(source: string): string[] | undefined {
  const lines = source.replace(/\r\n?/g, '\n').split('\n').filter((line) => line.trim() !== '')
  const declarations = lines.filter((line) => line.startsWith('export '))
  if (declarations.length !== 1) return undefined
  const start = lines.indexOf(declarations[0]!)
  const head = lines[start]!
  const rest = lines.slice(start + 1)
  if (head === `export interface ${ROOT_NAME} {`) {
    return rest.length === 1 && rest[0] === '}' ? ['{}'] : ['{', ...rest]
  }
  const alias = `export type ${ROOT_NAME} = `
  if (head.startsWith(alias)) return [head.slice(alias.length), ...rest]
  return undefined
}

/** `/**`, ` * text`, ` *\/` → `/** text *\/`: the same information in a third of the lines. */
function collapseDocComments(lines: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const content = lines[i + 1]
    if (lines[i] === '/**' && content?.startsWith(' * ') && lines[i + 2] === ' */') {
      out.push(`/** ${content.slice(3)} */`)
      i += 2
    } else {
      out.push(lines[i]!)
    }
  }
  return out
}

/**
 * Indents the compiler's flat output by brace depth (the compiler breaks lines only inside object
 * types). Braces inside string literals and comments do not count; a line starting with closing
 * braces is dedented by their number.
 */
function layout(lines: string[], indent: string): string {
  let depth = 0
  let inComment = false
  const out: string[] = []
  for (const [index, line] of lines.entries()) {
    const prefix = index === 0 ? '' : indent
    if (inComment || line.startsWith('/**')) {
      out.push(`${prefix}${'  '.repeat(depth)}${line}`)
      inComment = !line.includes('*/')
      continue
    }
    const leadingClosers = /^}*/.exec(line)![0].length
    out.push(`${prefix}${'  '.repeat(Math.max(0, depth - leadingClosers))}${line}`)
    depth = Math.max(0, depth + braceBalance(line))
  }
  return out.join('\n')
}

/** Opening minus closing braces of one line of type text, ignoring string literals. */
function braceBalance(line: string): number {
  let balance = 0
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (quote !== undefined) {
      if (char === '\\') i++
      else if (char === quote) quote = undefined
    } else if (char === '"' || char === "'") quote = char
    else if (char === '{') balance++
    else if (char === '}') balance--
  }
  return balance
}
