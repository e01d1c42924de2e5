/**
 * The compile step's fast path (plain-script.ts, SPEC S9.1, issue 12): a script V8 parses as
 * strict JavaScript runs as written, without esbuild; TypeScript, a syntax error and a script
 * longer than MAX_PLAIN_SCRIPT_CHARS go to esbuild as before. A plain script that only says
 * `import` or `require` (a comment, a string) needs no parser to find module uses.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { CompileError, compileScript, esbuildTransform, setScriptTransform } from '../../../src/ptc/compile.ts'
import { GUARD_PREFIX, SCRIPT_PREFIX, SCRIPT_SUFFIX } from '../../../src/ptc/compile-source.ts'
import { MAX_PLAIN_SCRIPT_CHARS, mayUseModules, plainJavaScript } from '../../../src/ptc/plain-script.ts'
import { mapFrames } from '../../../src/ptc/script-positions.ts'

/** esbuild, counting what it is asked to transform. */
function countingEsbuild(): string[] {
  const sources: string[] = []
  setScriptTransform((source) => {
    sources.push(source)
    return esbuildTransform(source)
  })
  return sources
}

describe('plain JavaScript scripts (S9.1, issue 12)', () => {
  afterEach(() => setScriptTransform(undefined))

  it('S9.1 a plain JavaScript script compiles without esbuild, to itself inside the wrapper', async () => {
    const transformed = countingEsbuild()
    const code = "const r = await tools.read_file({ path: 'a.txt' }) // plain-1\nreturn r.text.split('\\n').length"
    const compiled = await compileScript(code)
    expect(transformed).toEqual([])
    expect(compiled.js).toBe(`"use strict";\n${SCRIPT_PREFIX}${code}${SCRIPT_SUFFIX}return await __ptc_main__();\n`)
  })

  it('S9.1 TypeScript, a syntax error and a script over the length limit go to esbuild', async () => {
    const transformed = countingEsbuild()
    await compileScript('const n: number = 1 // plain-2\nreturn n')
    const broken = await compileScript('const b = ( // plain-2\nreturn b').then(() => undefined, (error: unknown) => error)
    const long = `const s = '${'x'.repeat(MAX_PLAIN_SCRIPT_CHARS)}' // plain-2\nreturn s.length`
    expect((await compileScript(long)).js).toContain('return s.length')
    // Each compile through esbuild transforms the script in its wrapper, and parses it in the guard wrapper.
    // The wrapper esbuild reads starts with a "use strict" directive on its first line (compile.ts).
    expect(transformed.filter((source) => source.startsWith(`"use strict"; ${SCRIPT_PREFIX}`))).toHaveLength(3)
    expect(transformed.filter((source) => source.startsWith(GUARD_PREFIX))).toHaveLength(3)
    expect(CompileError.isInstance(broken)).toBe(true)
    // esbuild's words for it, in the user's coordinates.
    expect((broken as CompileError).diagnostics).toEqual([{ line: 2, column: 1, message: 'Unexpected "return"', category: 'error' }])
  })

  it("S9.1 a runtime error's position in a plain script maps to the user's line and column", async () => {
    const code = 'const a = 1 // plain-3\n  if (a) {\n    null.x\n  }'
    const compiled = await compileScript(code)
    // `null.x` is line 3, column 5 of the script: line 5 of the compiled JS (the preamble and the wrapper's line first).
    expect(mapFrames([{ line: 5, column: 9 }], compiled, code)).toEqual([{ line: 3, column: 9 }])
    expect(mapFrames([{ line: 5, column: 5 }], compiled, code)).toEqual([{ line: 3, column: 5 }])
  })

  it('S9.1 plainJavaScript refuses what V8 does not parse as strict JavaScript, nesting too deep for its parser included', () => {
    const wrap = (code: string) => SCRIPT_PREFIX + code + SCRIPT_SUFFIX
    expect(plainJavaScript('return 1')).toMatchObject({ code: wrap('return 1') })
    for (const code of ['const n: number = 1', 'with (a) {}', 'let x = 1; let x = 2', 'enum E { A }', `${'('.repeat(8_000)}1${')'.repeat(8_000)}`]) {
      expect(plainJavaScript(code)).toBeUndefined()
    }
    // A stray } that closes the body early, whatever follows, does not pass the guard wrapper.
    for (const code of ['return 1\n}', 'return 1\n}\n{', 'return 1\n}\nfunction g() {', 'return 1\n}\nasync function* g() {']) expect(plainJavaScript(code)).toBeUndefined()
  })

  it('S9.1 module uses are looked for only where plain JavaScript could hold one: a call of import or require, comments allowed before its parenthesis', () => {
    expect(mayUseModules('return 1')).toBe(false)
    expect(mayUseModules('// import the rows; require nothing\nreturn "important"')).toBe(false)
    expect(mayUseModules('const note = "we require approval"\nreturn note')).toBe(false)
    expect(mayUseModules('return await import("node:fs")')).toBe(true)
    expect(mayUseModules('return await import /* x */ ("node:fs")')).toBe(true)
    expect(mayUseModules('return require //c\n ("fs")')).toBe(true)
    expect(mayUseModules('return require ("fs")')).toBe(true)
    // Not plain JavaScript: an import declaration, import.meta, TypeScript syntax that says the word.
    expect(mayUseModules('import fs from "node:fs"\nreturn 1')).toBe(true)
    expect(mayUseModules('return import.meta.url')).toBe(true)
    expect(mayUseModules('const n: number = 1 // import\nreturn n')).toBe(true)
  })
})
