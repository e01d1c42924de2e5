import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EARLY_CLOSE_MESSAGE, NO_IMPORTS_MESSAGE } from '../../../src/ptc/compile-source.ts'
import { formatDiagnostics, TypeChecker, type Diagnostic } from '../../../src/ptc/type-checker.ts'
import { missingPlatformMessage } from '../../../src/ptc/format-diagnostics.ts'

const DECLARATIONS = `interface ToolArgsMap { read_file: { path: string; limit?: number } }
interface ToolOutputMap { read_file: { text: string } }
declare const tools: { [K in keyof ToolArgsMap]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };
declare class ToolCallError extends Error { readonly toolName: string }
`

/** 1-based line and column of the first occurrence of `needle` in `code`. */
function at(code: string, needle: string): { line: number; column: number } {
  const offset = code.indexOf(needle)
  if (offset === -1) throw new Error(`${needle} not in code`)
  const before = code.slice(0, offset).split('\n')
  return { line: before.length, column: before.at(-1)!.length + 1 }
}

const codes = (diagnostics: Diagnostic[]): (number | undefined)[] => diagnostics.map((d) => d.code)

describe('TypeChecker', () => {
  let checker: TypeChecker
  beforeAll(() => {
    checker = new TypeChecker()
    checker.check('', DECLARATIONS) // the cold check: parses and binds the lib files
  }, 30_000)
  afterAll(() => checker.dispose())

  it('S9.1 a correct script has no diagnostics', () => {
    const code = [
      "const r = await tools.read_file({ path: 'a.txt', limit: 10 })",
      'const lines: string[] = r.text.split("\\n")',
      'return lines.length',
    ].join('\n')
    expect(checker.check(code, DECLARATIONS)).toEqual([])
  })

  it('S9.1 a stray } is reported at its own line and column, whatever follows it: nothing, a block or an unclosed function', () => {
    for (const code of ['return 1\n  }\nfoo()', 'const a = 1\n  }\n{\nconsole.log(a)', 'return 1\n  }\nconsole.log("outside")\nreturn "escaped"\nfunction g() {']) {
      expect(checker.check(code, DECLARATIONS)).toEqual([{ line: 2, column: 3, message: EARLY_CLOSE_MESSAGE, category: 'error' }])
    }
    // Braces that balance, in strings, comments and templates too, are not stray.
    expect(checker.check("const s = '}' // }\nif (s) { console.log(`}${s}`) }\nreturn s", DECLARATIONS)).toEqual([])
  })

  it('S9.1 a wrong argument type is a type error at the script’s own line and column', () => {
    const code = "const r = await tools.read_file({ path: 42 })\nreturn r.text"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics).toEqual([
      {
        ...at(code, 'path'),
        code: 2322,
        category: 'error',
        message: "Type 'number' is not assignable to type 'string'.",
      },
    ])
    expect(diagnostics[0]).toMatchObject({ line: 1, column: 35 })
  })

  it('S9.1 a wrong argument deep in multi-line code maps to its own line and column', () => {
    const code = [
      '// read two files',
      "const first = await tools.read_file({ path: 'a' })",
      '',
      'if (first.text.length > 0) {',
      '  const second = await tools.read_file({',
      "    path: 'b',",
      "    limit: 'ten',",
      '  })',
      '  return second.text',
      '}',
      'return null',
    ].join('\n')
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0]).toMatchObject({ ...at(code, 'limit'), code: 2322 })
    expect(diagnostics[0]).toMatchObject({ line: 7, column: 5 })
  })

  it('S9.1 an unknown tool name is a type error at the name', () => {
    const code = "const r = await tools.write_file({ path: 'a' })"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(codes(diagnostics)).toEqual([2339])
    expect(diagnostics[0]).toMatchObject(at(code, 'write_file'))
    expect(diagnostics[0]!.message).toBe("There is no tool named 'write_file'. The tools are: read_file.")
  })

  it('S9.1 a misspelt tool name suggests the closest tool, also inside a callback', () => {
    const code = "const all = await Promise.all(['a'].map((path) => tools.raed_file({ path })))"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics).toEqual([{ ...at(code, 'raed_file'), code: 2551, category: 'error', message: "There is no tool named 'raed_file'. Did you mean 'read_file'? The tools are: read_file." }])
  })

  it('S9.1 misusing an output field is a type error', () => {
    const code = "const r = await tools.read_file({ path: 'a' })\nconst n: number = r.text\nreturn r.txt"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics.map(({ line, column, code }) => ({ line, column, code }))).toEqual([
      { ...at(code, 'n:'), code: 2322 },
      { ...at(code, 'txt'), code: 2551 }, // "Did you mean 'text'?"
    ])
  })

  it('S9.1 forgetting await leaves a Promise, which has no output fields; TypeScript\'s await hint is kept', () => {
    const code = "const r = tools.read_file({ path: 'a' })\nreturn r.text"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(codes(diagnostics)).toEqual([2339])
    expect(diagnostics[0]!.message).toMatch(/^Property 'text' does not exist on type 'Promise<\{ text: string; \}>'\.\n2:10 Did you forget to use 'await'\?$/)
  })

  it('S9.1 a knock-on implicit-any error on the same line is not reported', () => {
    const code = "const r = tools.read_file({ path: 'a' })\nconst n = r.text.split('\\n').map((l) => l.length)"
    expect(codes(checker.check(code, DECLARATIONS))).toEqual([2339])
  })

  it('S9.3 a ToolCallError can be caught and its toolName read', () => {
    const code = [
      'try {',
      "  await tools.read_file({ path: 'missing' })",
      '} catch (error) {',
      '  if (error instanceof ToolCallError) return `${error.toolName}: ${error.message}`',
      '  throw error',
      '}',
    ].join('\n')
    expect(checker.check(code, DECLARATIONS)).toEqual([])
  })

  it('top-level return and console.log are allowed', () => {
    expect(checker.check('console.log("hi", 1, { a: 2 })\nreturn 1', DECLARATIONS)).toEqual([])
    expect(checker.check('return', DECLARATIONS)).toEqual([])
  })

  it('Node globals such as process and require do not exist in the isolate', () => {
    const code = "const env = process.env\nconst fs = require('fs')\nsetTimeout(() => {}, 1)"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics.map((d) => d.line)).toEqual([1, 2, 3])
    expect(diagnostics[0]).toMatchObject({ ...at(code, 'process'), category: 'error' })
    expect(diagnostics[0]!.message).toBe(missingPlatformMessage('process'))
    expect(diagnostics[1]!.message).toBe(missingPlatformMessage('require'))
    expect(diagnostics.map((d) => d.message).join('\n')).not.toContain('@types/node')
  })

  it("S9.1 scripts are checked against ES2025, as the isolates' V8 runs it: Set methods, iterator helpers, Promise.try, RegExp.escape, Float16Array", () => {
    const code = [
      'const both: Set<number> = new Set([1, 2]).union(new Set([3]))',
      'const doubled: number[] = [1, 2].values().map((x) => x * 2).toArray()',
      'const tried: Promise<number> = Promise.try(() => 1)',
      "const escaped: string = RegExp.escape('a.b')",
      'const half = new Float16Array(2)',
      'return [both.size, doubled, await tried, escaped, half.length]',
    ].join('\n')
    expect(checker.check(code, DECLARATIONS)).toEqual([])
  })

  it('S9.1 shared memory is not declared, as the isolate has none (SharedArrayBuffer, Atomics)', () => {
    const code = 'const b = new SharedArrayBuffer(8)\nAtomics.add(new Int32Array(4), 0, 1)\nconst ok: ArrayBufferLike = new ArrayBuffer(2)\nreturn [b, ok]'
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics.map((d) => `${d.line} ${d.message}`)).toEqual(["1 Cannot find name 'SharedArrayBuffer': scripts have no shared memory (SharedArrayBuffer, Atomics).", "2 Cannot find name 'Atomics': scripts have no shared memory (SharedArrayBuffer, Atomics)."])
  })

  it('a type-only import is checked at its own position; a runtime import gets the compile step’s message', () => {
    const code = "const a = 1\n  import type { X } from './nowhere'\nimport fs from 'node:fs'\nreturn a"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics).toEqual([
      expect.objectContaining({ ...at(code, "'./nowhere'"), code: 2307 }),
      { ...at(code, 'import fs'), message: NO_IMPORTS_MESSAGE, category: 'error' },
    ])
  })

  it('a syntax error is reported alone, in user coordinates', () => {
    const code = "const r = await tools.read_file({ path: 'a' }\nreturn r.txt"
    const diagnostics = checker.check(code, DECLARATIONS)
    expect(diagnostics).toEqual([expect.objectContaining({ line: 2, column: 1, code: 1005 })])
  })

  it('an unclosed block is reported at the end of the script, not on the wrapper', () => {
    const code = 'if (true) {\n  return 1'
    expect(checker.check(code, DECLARATIONS)).toEqual([
      expect.objectContaining({ line: 2, column: 11, code: 1005, message: "'}' expected." }),
    ])
  })

  it('changed declarations are picked up; unchanged ones are not re-parsed', () => {
    const code = "const r = await tools.write_file({ path: 'a', text: 'b' })\nreturn r.ok"
    expect(codes(checker.check(code, DECLARATIONS))).toEqual([2339])
    const withWrite = DECLARATIONS.replace(
      'read_file: { path: string; limit?: number }',
      'read_file: { path: string; limit?: number }; write_file: { path: string; text: string }',
    ).replace('read_file: { text: string }', 'read_file: { text: string }; write_file: { ok: boolean }')
    expect(checker.check(code, withWrite)).toEqual([])
    const declarationsFile = () =>
      checker.languageService.getProgram()!.getSourceFiles().find((file) => file.fileName.endsWith('/tools.d.ts'))
    const before = declarationsFile()
    checker.check('return 2', withWrite)
    expect(declarationsFile()).toBe(before)
    expect(codes(checker.check(code, DECLARATIONS))).toEqual([2339])
  })

  it('a warm check reuses the service and the parsed lib files', () => {
    const service = checker.languageService
    const libFile = () => service.getProgram()!.getSourceFiles().find((file) => file.fileName.endsWith('/lib.es5.d.ts'))
    checker.check('return 1', DECLARATIONS)
    const programBefore = service.getProgram()
    const libBefore = libFile()
    expect(libBefore).toBeDefined()
    checker.check('return 2', DECLARATIONS)
    expect(checker.languageService).toBe(service)
    expect(service.getProgram()).not.toBe(programBefore) // the script changed…
    expect(libFile()).toBe(libBefore) // …but lib.es5.d.ts was neither re-read nor re-parsed
  })

  it('two checkers share parsed lib files through the document registry', () => {
    const other = new TypeChecker()
    try {
      other.check('return 1', DECLARATIONS)
      const lib = (c: TypeChecker) =>
        c.languageService.getProgram()!.getSourceFiles().find((file) => file.fileName.endsWith('/lib.es5.d.ts'))
      expect(lib(other)).toBe(lib(checker))
    } finally {
      other.dispose()
    }
  })

  it('checkers with different files do not see each other’s scripts or declarations', () => {
    const other = new TypeChecker()
    try {
      const declarations = DECLARATIONS.replace('path: string;', 'path: number;')
      expect(codes(other.check("await tools.read_file({ path: 'a' })", declarations))).toEqual([2322])
      expect(checker.check("await tools.read_file({ path: 'a' })", DECLARATIONS)).toEqual([])
      expect(codes(other.check("await tools.read_file({ path: 'a' })", declarations))).toEqual([2322])
    } finally {
      other.dispose()
    }
  })

  it('custom globals replace the default console', () => {
    const withFetch = new TypeChecker({ globals: 'declare function sleep(ms: number): Promise<void>' })
    try {
      expect(withFetch.check('await sleep(1)', DECLARATIONS)).toEqual([])
      expect(codes(withFetch.check('console.log(1)', DECLARATIONS))).toEqual([2584])
    } finally {
      withFetch.dispose()
    }
  })

  it('a disposed checker refuses to check', () => {
    const short = new TypeChecker()
    short.dispose()
    expect(() => short.check('return 1', DECLARATIONS)).toThrow('TypeChecker is disposed')
  })
})

describe('formatDiagnostics', () => {
  it('renders one line:col category TScode: message line per diagnostic', () => {
    expect(
      formatDiagnostics([
        { line: 3, column: 15, code: 2345, category: 'error', message: 'Argument is wrong.\n  Details.' },
        { line: 1, column: 1, category: 'error', message: NO_IMPORTS_MESSAGE },
      ]),
    ).toBe(`3:15 error TS2345: Argument is wrong.\n    Details.\n1:1 error: ${NO_IMPORTS_MESSAGE}`)
  })
})
