/**
 * An unchecked script is compiled by esbuild from the host, without a checker worker (SPEC S9.1;
 * issue 12: a `ptc run --no-typecheck` starts no checker process), with the same outcomes as
 * the checker's compile: the value, syntax errors in the script's own lines, runtime errors
 * mapped back to them. Scripts that mention modules still go to a checker (TypeScript's parser
 * finds the imports), and so does every type-checked script.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepareInHost } from '../../../src/ptc/check/prepare-in-host.ts'
import { setScriptTransform } from '../../../src/ptc/compile.ts'
import { NO_IMPORTS_MESSAGE } from '../../../src/ptc/compile-source.ts'
import { MAX_DIAGNOSTICS } from '../../../src/ptc/format-diagnostics.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

describe('unchecked scripts compile in the host (S9.1, issue 12)', () => {
  let root: Context
  let dispose: () => unknown
  beforeAll(async () => {
    root = await createRoot()
    const fiber = root.plugin(Ptc, { isolation: 'inline', poolSize: 1, checkers: 1 })
    await fiber
    dispose = () => fiber.dispose()
    await usePlugin(root, (ctx) => void ctx.tools.register(echoTool()))
  }, 60_000)
  afterAll(() => dispose())

  it('S9.1 an unchecked run is answered without starting a checker worker', async () => {
    const result = await root.ptc.run('const r: { text: string } = await tools.echo({ text: "hi" })\nreturn r.text', { typecheck: false })
    expect(result).toMatchObject({ status: 'ok', value: 'hi', toolCalls: 1 })
    expect(root.ptc._checkers).toBeUndefined()
  })

  it("S9.1 an unchecked syntax error is a type-error status whose diagnostics are in the script's lines", async () => {
    const result = await root.ptc.run('const a = 1\nreturn (a', { typecheck: false })
    expect(result).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'SyntaxError' } })
    expect(result.diagnostics?.[0]).toMatchObject({ line: 2, category: 'error' })
    expect(root.ptc._checkers).toBeUndefined()
  })

  it("S9.1 what strict mode forbids is an unchecked syntax error at the script's own line and column, never run: with, delete x, a legacy octal (which had run as 8), a parameter named twice", async () => {
    const cases: [string, number, number, RegExp][] = [
      ['const a: number = 1\nlet x = 1\ndelete x', 3, 8, /Delete of a bare identifier/],
      ['const n: number = 1\nreturn 010 + n', 2, 8, /Legacy octal literals/],
      ['const m: object = Math\n\nwith (m) {}', 3, 1, /With statements/],
      ['const k: number = 1\nfunction f(a: number, a: number) {}', 2, 23, /cannot be bound multiple times/],
    ]
    for (const [code, line, column, message] of cases) {
      const result = await root.ptc.run(code, { typecheck: false })
      expect(result, code).toMatchObject({ status: 'type-error', toolCalls: 0, error: { name: 'SyntaxError' } })
      expect(result.diagnostics?.[0], code).toMatchObject({ line, column, message: expect.stringMatching(message) })
    }
  })

  it('S9.1 an unchecked script of thousands of syntax errors gets MAX_DIAGNOSTICS of them and one line counting the rest (all 9,000 were mapped and listed)', async () => {
    const code = `${Array.from({ length: 150 }, () => 'with (Math) {}').join('\n')}\nreturn 1`
    const result = await root.ptc.run(code, { typecheck: false })
    expect(result).toMatchObject({ status: 'type-error', toolCalls: 0 })
    expect(result.diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1)
    expect(result.diagnostics?.at(-1)).toMatchObject({ line: 101, message: '50 more diagnostics (50 of them errors) from line 101 on are not shown: fix the ones above and check again.' })
  })

  it('S9.1 an unchecked compile that never ends is stopped by the deadline (plus esbuild\'s start when it had not started), not awaited', async () => {
    setScriptTransform(() => new Promise(() => {}))
    try {
      // A script no other test compiles (the compile cache would answer it at once).
      const { outcome } = await prepareInHost(`const n: number = ${Math.random()}\nreturn n`, { timeoutMs: 50 })
      expect(outcome).toEqual({ kind: 'timeout' })
    } finally {
      setScriptTransform(undefined)
    }
  })

  it("S9.1 what only V8 refuses once esbuild passed the script (a regular expression's syntax) is a SyntaxError at the script's line and column", async () => {
    const result = await root.ptc.run('const a: number = 1\n\nreturn /(?<g>x)(?<g>y)/.source', { typecheck: false })
    expect(result).toMatchObject({ status: 'error', toolCalls: 0, error: { name: 'SyntaxError', line: 3, column: 8 } })
    expect(result.error?.message).toMatch(/Duplicate capture group name$/)
  })

  it('S9.3 ToolCallError is declared with the constructor it has (toolName, message): a checked script calling it with one argument is a type error; an unchecked one gets a ToolCallError whose message is empty, not a non-Error', async () => {
    const checked = await root.ptc.run("throw new ToolCallError('fake failure')", { typecheck: true })
    expect(checked).toMatchObject({ status: 'type-error' })
    expect(checked.diagnostics?.[0]?.message).toMatch(/Expected 2 arguments, but got 1/)
    const unchecked = await root.ptc.run("throw new ToolCallError('fake failure')", { typecheck: false })
    expect(unchecked).toMatchObject({ status: 'error', error: { name: 'ToolCallError', toolName: 'fake failure', message: '' } })
  }, 60_000)

  it("S9.3 a script's own //# sourceURL comment does not take its error positions away", async () => {
    const result = await root.ptc.run('function boom() { throw new Error("b") }\nreturn boom()\n//# sourceURL=evil.js', { typecheck: false })
    expect(result).toMatchObject({ status: 'error', error: { name: 'Error', message: 'b', line: 1, column: 25, stack: [{ line: 1, column: 25, function: 'boom' }, { line: 2, column: 8 }] } })
  })

  it("S9.1 a runtime error of an unchecked script points at the script's own line and column", async () => {
    const result = await root.ptc.run('const n: number = 2\nconst o: any = undefined\nreturn o.field', { typecheck: false })
    expect(result).toMatchObject({ status: 'error', error: { name: 'TypeError', line: 3, column: 10 } })
  })

  it('S9.1 an unchecked script that mentions import still goes to a checker, which refuses the import', async () => {
    const result = await root.ptc.run("const fs = await import('node:fs')\nreturn 1", { typecheck: false })
    expect(result).toMatchObject({ status: 'type-error', toolCalls: 0 })
    expect(result.error?.message).toContain(NO_IMPORTS_MESSAGE)
    expect(root.ptc._checkers).toBeDefined()
  }, 60_000)
})

describe('prepareInHost (S9.1)', () => {
  it('S9.1 a signal aborted before the compile ends it cancelled', async () => {
    const stop = new AbortController()
    stop.abort()
    expect((await prepareInHost('return 1', { timeoutMs: 60_000, signal: stop.signal })).outcome).toEqual({ kind: 'cancelled' })
  })

  it('S9.1 a script compiles to the body the isolate runs', async () => {
    const { outcome } = await prepareInHost('const x: number = 41\nreturn x + 1', { timeoutMs: 60_000 })
    expect(outcome.kind).toBe('prepared')
    if (outcome.kind !== 'prepared' || outcome.prepared.kind !== 'compiled') throw new Error(JSON.stringify(outcome))
    await expect(new Function(`return (async () => {\n${outcome.prepared.compiled.js}\n})()`)()).resolves.toBe(42)
  })
})
