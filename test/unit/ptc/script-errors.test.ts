/**
 * Runtime errors point at the script (issue 11, SPEC S9.3): an error the script throws comes back
 * with the script's own line and column, from the compile step's source map, and a short stack of
 * script frames only, in both isolation modes and with or without type-checking; the rendered
 * content shows the same.
 */
import { describe, expect, it } from 'vitest'
import { renderRunCode } from '../../../src/ptc/run-code-value.ts'
import { usePtcRoot } from '../../helpers/ptc-root.ts'
import { echoTool } from '../../helpers/registry.ts'

/** `lines` joined; the expected position of `marker` in it (1-based line and column). */
function script(...lines: string[]): string {
  return lines.join('\n')
}
function positionOf(code: string, marker: string, occurrence = 0): { line: number; column: number } {
  let offset = -1
  for (let index = 0; index <= occurrence; index++) offset = code.indexOf(marker, offset + 1)
  if (offset === -1) throw new Error(`no ${marker} in the script`)
  const before = code.slice(0, offset).split('\n')
  return { line: before.length, column: before[before.length - 1]!.length + 1 }
}

describe.each([
  ['process', true],
  ['process', false],
  ['inline', true],
  ['inline', false],
] as const)('issue 11 errors point at the script (isolation %s, typecheck %s)', (isolation, typecheck) => {
  const rootOf = usePtcRoot({ isolation, typecheck }, (ctx) => void ctx.tools.register(echoTool()))

  it('S9.3 an error thrown at top level carries its line and column; the rendered content shows them', async () => {
    const code = script('const users: { name: string }[] = [{ name: "a" }]', 'const missing: any = undefined', 'const n: number = users.length', 'return missing.name + n')
    const result = await rootOf().ptc.run(code)
    const at = positionOf(code, 'name + n')
    expect(result.status).toBe('error')
    expect(result.error).toEqual({ name: 'TypeError', message: "Cannot read properties of undefined (reading 'name')", ...at })
    const [content] = renderRunCode(result)
    expect(content?.type === 'text' && content.text).toContain(`error: TypeError: Cannot read properties of undefined (reading 'name') at line ${at.line}:${at.column}`)
  })

  it('S9.1 a script that imports a module at run time is refused at the import with "scripts cannot import modules; use tools.*", checked or not', async () => {
    for (const code of [script('const n: number = 1', 'const fs = await import("fs")', 'return n'), script('const n: number = 1', 'const fs = require("fs")', 'return n')]) {
      const result = await rootOf().ptc.run(code)
      const at = positionOf(code, code.includes('import(') ? 'import' : 'require')
      expect(result).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'SyntaxError' } })
      expect(result.diagnostics).toEqual([{ ...at, category: 'error', message: 'scripts cannot import modules; use tools.*' }])
    }
  })

  it('S9.3 a script that ends unfinished is told so at its last non-blank line, in the same words checked or not (package trial)', async () => {
    for (const [code, line, column, message] of [
      ['const x = Math.max(1, 2\n', 1, 24, 'Expected ")" but the script ended'],
      ['return 1 +', 1, 11, 'Unexpected end of the script'],
      ['const a: number = 1\nconst x = Math.max(a, 2\n\n\n', 2, 24, 'Expected ")" but the script ended'],
    ] as const) {
      const result = await rootOf().ptc.run(code)
      expect(result).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'SyntaxError' } })
      expect(result.diagnostics?.[0], JSON.stringify(result.diagnostics)).toMatchObject({ line, column, category: 'error', message: expect.stringContaining(message) })
    }
  })

  it.runIf(typecheck)("S9.3 a checked script with an unclosed { keeps TypeScript's '}' expected; one TypeScript finds unfinished but esbuild compiles is not run", async () => {
    const block = await rootOf().ptc.run('if (Math.random() < 2) {\n  return 1')
    expect(block).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'TypeCheckError' } })
    expect(block.diagnostics?.[0]).toMatchObject({ message: "'}' expected.", code: 1005 })
    const label = await rootOf().ptc.run('await tools.echo({ text: "ran" })\nlabel:')
    expect(label).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'TypeCheckError' } })
  })

  it.runIf(!typecheck)('S9.3 an unchecked script with an unclosed { or ending in a statement head is told so at its last non-blank line', async () => {
    const block = await rootOf().ptc.run('function f() {\n  const a = 1\nreturn a\n')
    expect(block).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'SyntaxError' } })
    expect(block.diagnostics).toEqual([{ line: 3, column: 9, category: 'error', message: 'Expected "}" but the script ended: a "{" it opens is not closed; close it' }])
    // A plain script is compiled without esbuild: V8 refuses the wrapper's own closing brace.
    const head = await rootOf().ptc.run('const xs = [1]\nfor (const x of xs)\n')
    expect(head).toMatchObject({ status: 'error', toolCalls: 0, error: { name: 'SyntaxError', line: 2, column: 20 } })
    expect(head.error?.message).toMatch(/^Unexpected end of the script: it ends in the middle of an expression or statement/)
  })

  it('S9.3 a script written with CR, CR LF or U+2028 line breaks gets the same lines and columns as with LF: a throw, an import, a syntax error', async () => {
    for (const separator of ['\n', '\r', '\r\n', '\u2028']) {
      const thrown = await rootOf().ptc.run(['const a: number = 1', 'const b: number = 2', 'throw new Error("x" + a + b)'].join(separator))
      expect(thrown.error).toEqual({ name: 'Error', message: 'x12', line: 3, column: 7 })
      const imported = await rootOf().ptc.run(['const a: number = 1', 'const fs = require("fs")', 'return a'].join(separator))
      expect(imported.diagnostics).toEqual([{ line: 2, column: 12, category: 'error', message: 'scripts cannot import modules; use tools.*' }])
      const broken = await rootOf().ptc.run(['const a: number = 1', '', 'const b = (a +;', 'return b'].join(separator))
      expect(broken.status).toBe('type-error')
      expect(broken.diagnostics?.[0]).toMatchObject({ line: 3, category: 'error' })
    }
  })

  it("S9.3 a script's own inline source map comment does not take its error's line and column away", async () => {
    // A valid map whose mappings point 46 lines away, and one naming another source.
    for (const sources of [['script.ts'], ['evil']]) {
      const map = Buffer.from(JSON.stringify({ version: 3, sources, names: [], mappings: `${';'.repeat(46)}AAAA,oBAAoB` })).toString('base64')
      const code = script('const x: number = 1', "throw new Error('forged')", `//# sourceMappingURL=data:application/json;base64,${map}`)
      const result = await rootOf().ptc.run(code)
      expect(result.error).toEqual({ name: 'Error', message: 'forged', ...positionOf(code, "new Error('forged')") })
    }
  })

  it('S9.3 an error thrown after an await carries the line after the await', async () => {
    const code = script('const r = await tools.echo({ text: "hi" })', '', '    // a comment line', 'const parts: any = null', 'return r.text + parts.length')
    const result = await rootOf().ptc.run(code)
    expect(result).toMatchObject({ status: 'error', toolCalls: 1, error: { name: 'TypeError', ...positionOf(code, 'length') } })
    expect(result.error?.stack).toBeUndefined()
  })

  it('S9.3 an error in an array callback has a stack of script frames only: the callback, then the line that called map', async () => {
    const code = script(
      'type Row = { user?: { name: string } }',
      'const rows: Row[] = [{ user: { name: "a" } }, {}]',
      'function nameOf(row: Row): string {',
      '  return row.user!.name',
      '}',
      'const names = rows.map((row) => nameOf(row))',
      'return names',
    )
    const result = await rootOf().ptc.run(code)
    expect(result.error).toMatchObject({ name: 'TypeError', ...positionOf(code, 'name\n') })
    expect(result.error?.stack).toEqual([
      { function: 'nameOf', ...positionOf(code, 'name\n') },
      positionOf(code, 'nameOf(row))'),
      positionOf(code, 'map('),
    ])
    const [content] = renderRunCode(result)
    const text = content?.type === 'text' ? content.text : ''
    expect(text).toContain(`\n  at nameOf (line 4:20)\n  at line 6:33\n  at line 6:20`)
    expect(text).not.toMatch(/runtime\.js|script\.js|Array\.map|<anonymous>/)
  })

  it('S9.3 an error thrown in a .then callback that the script awaits points into the callback', async () => {
    const code = script('const text = await tools.echo({ text: "hi" }).then((r) => {', '  const nothing: any = undefined', '  return nothing.text', '})', 'return text')
    const result = await rootOf().ptc.run(code)
    expect(result.error).toMatchObject({ name: 'TypeError', ...positionOf(code, 'text\n}') })
  })

  it('S9.3 an Error the script throws itself points at its `new Error`, and the await of the async function that threw is in the stack', async () => {
    const code = script('async function load(path: string) {', '  const r = await tools.echo({ text: path })', '  throw new Error(`cannot load ${r.text}`)', '}', 'await load("a.txt")', 'return 1')
    const result = await rootOf().ptc.run(code)
    expect(result.error).toEqual({
      name: 'Error',
      message: 'cannot load a.txt',
      ...positionOf(code, 'new Error'),
      stack: [{ function: 'load', ...positionOf(code, 'new Error') }, positionOf(code, 'await load("a.txt")')],
    })
  })

  it('S9.3 a thrown value without a stack, or with a forged one, gets no line and the run still answers', async () => {
    const plain = await rootOf().ptc.run('throw "just a string"')
    expect(plain).toMatchObject({ status: 'error', error: { name: 'Error', message: 'just a string (not an Error, so no line is known: throw new Error(…) to get one)' } })
    expect(plain.error?.line).toBeUndefined()
    const forged = await rootOf().ptc.run('const fake = { name: "Fake", message: "m", stack: "    at file:///ptc/script.js:999:1\\n    at x (file:///ptc/script.js:0:0)" }\nthrow fake')
    expect(forged.error).toEqual({ name: 'Fake', message: 'm (not an Error, so no line is known: throw new Error(…) to get one)' })
    const healthy = await rootOf().ptc.run('return (await tools.echo({ text: "ok" })).text')
    expect(healthy).toMatchObject({ status: 'ok', value: 'ok' })
  })
})
