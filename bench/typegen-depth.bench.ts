/**
 * Declaring deeply nested schemas (SPEC S9.1, `typegen/render-type.ts`): the time to generate the
 * declarations of one tool whose input schema nests objects `depth` deep, against a flat schema
 * of as many properties. Every call renders afresh (a new description each time, so the
 * declarations cache never answers); then a hostile web of `$defs` (one call a sample). An
 * imported MCP server's schema is declared at `ptc check`, `ptc run` and `ptc serve` start-up,
 * on the host's thread.
 */
import { z } from 'zod'
import { generateDeclarations, type TypegenTool } from '../typegen/index.ts'
import { section, type BenchCase } from './harness.ts'

let calls = 0

/** One fresh rendering of a tool with `inputSchema`. */
const declare = (inputSchema: Record<string, unknown>) => (): Promise<string> => {
  const tool: TypegenTool = { name: 'deep', description: `call ${calls++}`, parameters: z.object({}), output: z.unknown(), parametersJsonSchema: inputSchema, outputJsonSchema: { type: 'string' } }
  return generateDeclarations([tool], { embedded: true })
}

/** `{ a?: { a?: … string } }`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' }
  for (let level = 0; level < depth; level++) schema = { type: 'object', properties: { a: schema } }
  return schema
}

/**
 * `count` definitions, each an object of `count` properties referring to every definition: a
 * hostile imported schema. Expanded to the node budget it is some 470,000 type nodes at 200 with
 * few distinct contents; keying each node by its whole text made it 34 s.
 */
function web(count: number): Record<string, unknown> {
  const defs = Object.fromEntries(Array.from({ length: count }, (_, i) => [`D${i}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: count }, (_, j) => [`p${j}`, { $ref: `#/$defs/D${j}` }])) }]))
  return { type: 'object', properties: { r: { $ref: '#/$defs/D0' } }, $defs: defs }
}

const flat = (properties: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: properties }, (_, index) => [`p${index}`, { type: 'string' }])) })

const cases: BenchCase[] = [
  { name: 'flat object, 24 properties', run: declare(flat(24)), baseline: true },
  { name: 'objects nested 24 deep', run: declare(nested(24)) },
  { name: 'objects nested 2,000 deep (declared to the depth cap, 32)', run: declare(nested(2_000)) },
  { name: '$defs web: 40 definitions each referring to all 40', run: declare(web(40)), iterations: 1 },
  { name: '$defs web: 200 definitions each referring to all 200', run: declare(web(200)), iterations: 1 },
]

export const typegenDepth = section('typegen depth (µs to declare one tool)', cases, { samples: 5, iterations: 5, warmup: 2 })
