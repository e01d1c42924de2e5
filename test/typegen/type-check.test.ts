/**
 * The generated file is only useful if TypeScript accepts it as an ambient declaration next to a
 * user script and checks the script against it (S9.1, S9.3). Compiles in memory with the
 * `typescript` compiler API, lib es2024, strict.
 */
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
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

/** Type-checks `script` against `declarations`; returns the diagnostics as readable lines. */
function check(declarations: string, script: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2024,
    lib: ['lib.es2024.d.ts'],
    strict: true,
    noEmit: true,
    types: [],
  }
  const files = new Map([
    ['/virtual/tools.d.ts', declarations],
    ['/virtual/script.ts', script],
  ])
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = files.get(fileName)
    return text === undefined
      ? getSourceFile.call(host, fileName, languageVersion, ...rest)
      : ts.createSourceFile(fileName, text, languageVersion, true)
  }
  host.fileExists = (fileName) => files.has(fileName) || fileExists.call(host, fileName)
  host.readFile = (fileName) => files.get(fileName) ?? readFile.call(host, fileName)
  const program = ts.createProgram([...files.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}` : ''
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  })
}

// Each test builds a fresh program and parses the lib files: seconds on a loaded machine.
describe('generated declarations under the TypeScript compiler', { timeout: 30_000 }, () => {
  for (const compact of [false, true]) {
    it(`S9.1 S9.3 a correct script type-checks with zero diagnostics (compact: ${compact})`, async () => {
      const declarations = await generateDeclarations(TOOLS, { compact })
      const script = `
async function main(): Promise<number> {
  const file = await tools.read_file({ path: 'a.txt' })
  const limited = await tools.read_file({ path: 'a.txt', limit: 10 })
  const entries = await tools.fs__list({ dir: '.', kinds: ['file', 'dir', 'file'] })
  const dirs: string[] = entries.filter((entry) => entry.kind === 'dir').map((entry) => entry.name)
  const nothing: null = await tools['my-tool']({})
  const text: string = await tools.tree({ root: { name: 'r', children: [{ anything: true }] } })
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
})
