/**
 * The generated file is only useful if TypeScript accepts it as an ambient declaration next to a
 * user script and checks the script against it (S9.1, S9.3). Compiles in memory with the
 * `typescript` compiler API, lib es2025, strict.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RESERVED_NAMES } from '../../typegen/alias-names.ts'
import { check, TOOL_CALL_ERROR } from './check-script.ts'
import { generateDeclarations, type TypegenTool } from '../../typegen/index.ts'

const Tree: z.ZodType<unknown> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }))

const TOOLS: TypegenTool[] = [
  {
    name: 'read_file',
    description: 'Read a text file.',
    parameters: z.object({ path: z.string(), limit: z.number().int().optional() }),
    output: z.object({ text: z.string(), totalLines: z.number() }),
  },
  {
    name: 'fs__list',
    description: 'List a directory. Ends the comment early */ on purpose.',
    parameters: z.object({ dir: z.string(), kinds: z.array(z.enum(['file', 'dir'])).min(1).max(50) }),
    output: z.array(z.object({ name: z.string(), kind: z.enum(['file', 'dir']) })),
  },
  { name: 'my-tool', description: 'Namespaced.', parameters: z.object({}), output: z.null(), deferLoading: true },
  { name: 'tree', description: 'A recursive tree.', parameters: z.object({ root: Tree }), output: z.string() },
]

// Each test builds a fresh program and parses the lib files: seconds on a loaded machine.
describe('generated declarations under the TypeScript compiler', { timeout: 30_000 }, () => {
  for (const options of [{}, { embedded: true }, { compact: true }]) {
    it(`S9.1 S9.3 a correct script type-checks with zero diagnostics (${JSON.stringify(options)})`, async () => {
      // The embedded forms leave ToolCallError to the run_code description's prose.
      const declarations = (await generateDeclarations(TOOLS, options)) + (Object.keys(options).length > 0 ? TOOL_CALL_ERROR : '')
      const script = `
async function main(): Promise<number> {
  const file = await tools.read_file({ path: 'a.txt' })
  const limited = await tools.read_file({ path: 'a.txt', limit: 10 })
  const entries = await tools.fs__list({ dir: '.', kinds: ['file', 'dir', 'file'] })
  const dirs: string[] = entries.filter((entry) => entry.kind === 'dir').map((entry) => entry.name)
  const nothing: null = await tools['my-tool']({})
  const text: string = await tools.tree({ root: { name: 'r', children: [{ name: 'leaf', children: [] }] } })
  try {
    await tools.read_file({ path: 'missing' })
  } catch (error) {
    if (error instanceof ToolCallError) {
      const parts: string[] = [error.name, error.toolName, error.message]
      return parts.length
    }
  }
  return file.totalLines + limited.text.length + dirs.length + text.length + (nothing === null ? 0 : 1)
}
void main
`
      expect(check(declarations, script)).toEqual([])
    })
  }

  it('S9.1 a wrong argument type, a missing argument and an unknown tool are diagnostics', async () => {
    const declarations = await generateDeclarations(TOOLS)
    const script = `
async function main() {
  await tools.read_file({ path: 42 })
  await tools.read_file({})
  await tools.fs__list({ dir: '.', kinds: ['socket'] })
  await tools.nope({})
}
void main
`
    const diagnostics = check(declarations, script)
    expect(diagnostics).toHaveLength(4)
    expect(diagnostics[0]).toMatch(/^\/virtual\/script\.ts:3 Type 'number' is not assignable to type 'string'/)
    expect(diagnostics[1]).toMatch(/^\/virtual\/script\.ts:4 .*Property 'path' is missing/s)
    expect(diagnostics[2]).toMatch(/^\/virtual\/script\.ts:5 Type '"socket"' is not assignable/)
    expect(diagnostics[3]).toMatch(/^\/virtual\/script\.ts:6 Property 'nope' does not exist/)
  })

  it('S9.1 the canonical return type is enforced on the result', async () => {
    const declarations = await generateDeclarations(TOOLS)
    const script = `
async function main() {
  const file = await tools.read_file({ path: 'a' })
  const n: number = file.text
  return n
}
void main
`
    expect(check(declarations, script)).toEqual([
      "/virtual/script.ts:4 Type 'string' is not assignable to type 'number'.",
    ])
  })

  it('S9.1 an empty tool set is still a valid declaration file', async () => {
    const declarations = await generateDeclarations([])
    expect(check(declarations, 'async function main() { try {} catch (e) { if (e instanceof ToolCallError) return e.toolName } }\nvoid main\n')).toEqual([])
  })

  it('S9.1 exact objects: a key misspelt or added fails the check (no-keys objects, required-only anyOf arms)', async () => {
    const declarations = await generateDeclarations([
      { name: 'ping', description: 'No arguments.', parameters: z.strictObject({}), output: z.null() },
      {
        name: 'clone',
        description: 'Clone from a path or a URL.',
        parameters: z.object({}),
        parametersJsonSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, url: { type: 'string' }, depth: { type: 'integer' } },
          additionalProperties: false,
          anyOf: [{ required: ['path'] }, { required: ['url'] }],
        },
        output: z.null(),
      },
    ])
    const script = `
async function main() {
  await tools.ping({})
  await tools.clone({ path: '/r' })
  await tools.clone({ url: 'https://x', depth: 1 })
  await tools.ping({ verbose: true })
  await tools.clone({ pth: '/r' })
  await tools.clone({ depth: 1 })
}
void main
`
    const diagnostics = check(declarations, script)
    expect(diagnostics).toHaveLength(3)
    expect(diagnostics[0]).toMatch(/^\/virtual\/script\.ts:6 Type 'true' is not assignable to type 'never'/)
    expect(diagnostics[1]).toMatch(/^\/virtual\/script\.ts:7 .*'pth' does not exist/s)
    expect(diagnostics[2]).toMatch(/^\/virtual\/script\.ts:8 /)
  })

  it('S9.1 shared aliases (a reserved name among them) check scripts like the inline types did', async () => {
    const since = z.string().optional().describe('Only commits after this date: ISO 8601, or relative such as 2.weeks or yesterday.')
    const tools: TypegenTool[] = ['log', 'shortlog', 'whatchanged'].map((name) => ({
      name,
      description: `git ${name}`,
      parameters: z.object({ date: since, [`${name}Only`]: z.boolean().optional() }),
      output: z.object({ [name]: z.number(), commits: z.array(z.object({ hash: z.string().describe('Full SHA-1 hash of the commit.'), date: z.string() })) }),
    }))
    const declarations = await generateDeclarations(tools)
    expect(declarations).toContain('type Date2 = string')
    expect(declarations).toContain('type Commit = {')
    const script = `
async function main() {
  const { commits } = await tools.log({ date: 'yesterday' })
  const hashes: string[] = commits.map((commit) => commit.hash)
  await tools.shortlog({ date: 7 })
  await tools.whatchanged({ dat: 'x' })
  return hashes
}
void main
`
    const diagnostics = check(declarations, script)
    expect(diagnostics).toHaveLength(2)
    expect(diagnostics[0]).toMatch(/^\/virtual\/script\.ts:5 Type 'number' is not assignable to type 'string'/)
    expect(diagnostics[1]).toMatch(/^\/virtual\/script\.ts:6 .*'dat' does not exist/s)
  })

  it("S9.1 alias names avoid every global type and value name of TypeScript's ES2025 library", () => {
    const libDir = dirname(ts.getDefaultLibFilePath({}))
    const files = readdirSync(libDir).filter((name) => /^lib\.(es5|es20(1[5-9]|2[0-5])(\.\w+)*|decorators(\.\w+)*)\.d\.ts$/.test(name))
    expect(files).toContain('lib.es2025.d.ts')
    const names = new Set<string>()
    for (const name of files) {
      for (const match of readFileSync(join(libDir, name), 'utf8').matchAll(/^(?:declare )?(?:interface|type|var|namespace|function|class) ([A-Z][\w$]*)/gm)) names.add(match[1]!)
    }
    expect([...names].filter((name) => !RESERVED_NAMES.has(name))).toEqual([])
  })
})
