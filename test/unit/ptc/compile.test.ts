import { EARLY_CLOSE_MESSAGE, UNFINISHED_SCRIPT_MESSAGE } from '../../../src/ptc/compile-source.ts'
import { describe, expect, it } from 'vitest'
import { CompileError, compileScript } from '../../../src/ptc/compile.ts'
import { NO_IMPORTS_MESSAGE } from '../../../src/ptc/compile-source.ts'

type ScriptFunction = (...args: unknown[]) => Promise<unknown>
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => ScriptFunction

/** Runs compiled js the way the runner does: as the body of an async function. */
async function run(code: string, tools: unknown = {}): Promise<unknown> {
  const { js } = await compileScript(code)
  return new AsyncFunction('tools', js)(tools)
}

async function compileErrorOf(code: string): Promise<CompileError> {
  const error = await compileScript(code).then(
    () => undefined,
    (error: unknown) => error,
  )
  if (!CompileError.isInstance(error)) throw new Error(`expected a CompileError, got ${String(error)}`)
  return error
}

describe('compileScript', () => {
  it('S9.1 top-level await and a top-level return give the script its result', async () => {
    const tools = { read_file: async ({ path }: { path: string }) => ({ text: `contents of ${path}` }) }
    const code = [
      "const r: { text: string } = await tools.read_file({ path: 'a.txt' })",
      'const words: string[] = r.text.split(" ")',
      'return { first: words[0], count: words.length }',
    ].join('\n')
    expect(await run(code, tools)).toEqual({ first: 'contents', count: 3 })
  })

  it('a script without return resolves to undefined', async () => {
    expect(await run('const x = 1 + 1')).toBeUndefined()
  })

  it('the output is a plain strict script body: no module wrapper, exports or require', async () => {
    const { js } = await compileScript('interface P { x: number }\nconst p: P = { x: 1 }\nreturn p.x')
    expect(js).not.toMatch(/\b(exports|require|module|import)\b/)
    expect(js.startsWith('"use strict";')).toBe(true)
    await expect(run('undeclared = 1')).rejects.toThrow(ReferenceError)
  })

  it('type-only imports are stripped', async () => {
    const code = [
      "import type { ToolOutputMap } from 'ptc'",
      "import { type ToolArgsMap } from 'ptc'",
      "const args: ToolArgsMap['read_file'] = { path: 'x' }",
      "const out: ToolOutputMap['read_file'] | undefined = undefined",
      'return [args.path, out]',
    ].join('\n')
    const { js } = await compileScript(code)
    expect(js).not.toContain('import')
    expect(await run(code)).toEqual(['x', undefined])
  })

  it('a runtime import, import() or require() is rejected with the one clear message at its position', async () => {
    const error = await compileErrorOf(
      ["import fs from 'node:fs'", 'const a = 1', "  const cp = require('child_process')", "const m = await import('x')"].join('\n'),
    )
    expect(error.code).toBe('compile_error')
    expect(error.diagnostics).toEqual([
      { line: 1, column: 1, message: NO_IMPORTS_MESSAGE, category: 'error' },
      { line: 3, column: 14, message: NO_IMPORTS_MESSAGE, category: 'error' },
      { line: 4, column: 17, message: NO_IMPORTS_MESSAGE, category: 'error' },
    ])
    expect(error.message).toContain('1:1 error: scripts cannot import modules; use tools.*')
    await expect(compileErrorOf("import 'side-effect'")).resolves.toBeInstanceOf(CompileError)
  })

  it('a require the script declares itself is an ordinary function', async () => {
    expect(await run('function require(name: string) { return name.length }\nreturn require("abc")')).toBe(3)
  })

  it('a syntax error is reported at the user’s own line and column', async () => {
    const error = await compileErrorOf('const a = 1\nconst b = (a +\n\nreturn b')
    expect(error.diagnostics).toEqual([
      { line: 4, column: 1, message: 'Unexpected "return"', category: 'error' },
    ])
  })

  it('a syntax error on line 1 maps to line 1, with a UTF-16 column past non-ASCII text', async () => {
    const error = await compileErrorOf('const s = "ééé"; let = = 1')
    expect(error.diagnostics[0]).toMatchObject({ line: 1, column: 24 })
  })

  it('S9.3 an unclosed { (whose end esbuild finds on the wrapper\'s own lines) is said at the end of the script, as a brace not closed', async () => {
    const unclosed = await compileErrorOf('if (true) {\n  return 1\n\n')
    expect(unclosed.diagnostics).toEqual([{ line: 2, column: 11, message: 'Expected "}" but the script ended: a "{" it opens is not closed; close it', category: 'error' }])
  })

  it('S9.1 a stray } is a compile error at that brace, whatever follows it: nothing, a block or an unclosed function', async () => {
    // Without the wrapper's labelled block the last two parsed, and the lines after the brace ran
    // outside the script's body, before it (a top-level return there replaced its result).
    for (const code of ['return 1\n  }\nfoo()', 'const a = 1\n  }\n{\nconsole.log(a)', 'return 1\n  }\nconsole.log("outside")\nreturn "escaped"\nfunction g() {']) {
      expect((await compileErrorOf(code)).diagnostics).toEqual([{ line: 2, column: 3, message: EARLY_CLOSE_MESSAGE, category: 'error' }])
    }
  })

  it('S9.1 a script that ends in the middle of an expression is told so at its last line, not blamed for the wrapper\'s brace', async () => {
    const cases: [string, number, number][] = [['return 1+\n', 1, 10], ['return [1,', 1, 11], ['const x = (', 1, 12], ['return {a:', 1, 11], ['const a = 1\nreturn a +\n\n', 2, 11]]
    for (const [code, line, column] of cases) {
      const [diagnostic, ...rest] = (await compileErrorOf(code)).diagnostics
      expect(rest, code).toEqual([])
      expect(diagnostic, code).toEqual({ line, column, message: UNFINISHED_SCRIPT_MESSAGE, category: 'error' })
    }
  })

  it('S9.1 a script that ends where esbuild still expects a ")", "]", a name or a ":" is told so at its last line, not that it found a "}"', async () => {
    // Review of 01ec73a: esbuild expected something else than the wrapper's closing brace and said it found a "}".
    const cases: [string, number, number, string][] = [
      ['foo(1, 2', 1, 9, 'Expected ")" but the script ended'],
      ['return [1, 2', 1, 13, 'Expected "]" but the script ended'],
      ['const x = 1\nif (x\n\n', 2, 6, 'Expected ")" but the script ended'],
      ['return x.', 1, 10, 'Expected identifier but the script ended'],
      ['return a ? b', 1, 13, 'Expected ":" but the script ended'],
    ]
    for (const [code, line, column, message] of cases) expect((await compileErrorOf(code)).diagnostics, code).toEqual([{ line, column, message, category: 'error' }])
    // A stray "}" before it is still the one blamed, at that brace.
    expect((await compileErrorOf('return 1\n  }\nfoo(1, 2')).diagnostics).toEqual([{ line: 2, column: 3, message: EARLY_CLOSE_MESSAGE, category: 'error' }])
  })

  it('S9.1 nor does a block the script labels itself as the guard was once labelled, a loop, or a type, object or class left open after it', async () => {
    // helper-29's trial: its own `__ptc_body__:` block held the guard's `break` (the label is now
    // new in every process), and a type's body the guard's last line (hence its `!0`). Plain
    // JavaScript and TypeScript (`: number`) take the two compile paths.
    const tails = ['__ptc_body__: {\nconsole.log("EVIL")', '__ptc_body__: while (true) {', 'interface I {', 'type T = {', 'let x: {', 'class K {', 'const o = { a: 1,', 'enum E {']
    for (const head of ['const a = 1', 'const a: number = 1']) {
      for (const tail of tails) expect((await compileErrorOf(`${head}\n  }\n${tail}`)).diagnostics, tail).toEqual([{ line: 2, column: 3, message: EARLY_CLOSE_MESSAGE, category: 'error' }])
    }
    // The script may use any label itself, that one included.
    expect((await compileScript('__ptc_body__: {\n  if (a) break __ptc_body__\n}\nreturn 1')).js).toContain('break __ptc_body__')
  })

  it('S9.1 export in a script says a script is a function body that returns, not a module', async () => {
    const error = await compileErrorOf('export const x = 1\nreturn x')
    expect(error.diagnostics).toEqual([
      { line: 1, column: 1, message: 'Unexpected "export": a script is the body of an async function, not a module, so it cannot export; return what the caller needs instead', category: 'error' },
    ])
  })

  it('S9.1 a namespace in an unchecked script says where namespaces are allowed, as the type checker does, not only that a ";" was expected', async () => {
    const message = 'A namespace declaration is only allowed at the top level of a namespace or module, and a script is the body of an async function: use an object or plain functions instead'
    expect((await compileErrorOf('namespace N { export const a = 1 }\nreturn N.a')).diagnostics).toEqual([{ line: 1, column: 11, message, category: 'error' }])
    expect((await compileErrorOf('const x = 1\ndeclare module Foo {}\nreturn x')).diagnostics).toEqual([{ line: 2, column: 16, message, category: 'error' }])
    // Any other missing ";" keeps esbuild's words.
    expect((await compileErrorOf('const a = 1 b\nreturn a')).diagnostics?.[0]?.message).toBe('Expected ";" but found "b"')
  })

  it('the same code is compiled once: a cache hit returns the same object', async () => {
    const code = `return ${Math.random()}`
    const first = await compileScript(code)
    const second = await compileScript(code)
    expect(second).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    const other = await compileScript(`${code} + 1`)
    expect(other).not.toBe(first)
  })

  it('CompileError is recognised across realms by its marker', async () => {
    const error = await compileErrorOf('let = = 1')
    expect(CompileError.isInstance(error)).toBe(true)
    expect(CompileError.isInstance(new Error('x'))).toBe(false)
    expect(error.name).toBe('CompileError')
  })
})
