/**
 * `ptc run --no-typecheck` as a user runs it (S9.1): the host compiles the script itself, with
 * esbuild started while the host loads, and the isolate worker started before the host exists
 * (issue 12: start-up); outcomes are those of a compile in a checker: no type errors, syntax
 * errors at the script's lines, imports refused.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { NO_IMPORTS_MESSAGE } from '../../src/ptc/compile-source.ts'
import { PTC_BIN, runPtc } from './ptc-cli.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-run-unchecked-'))
const script = (name: string, code: string): string => {
  fs.writeFileSync(path.join(dir, name), code)
  return name
}
const run = (name: string, ...flags: string[]) => runPtc(['run', name, '--json', '--no-typecheck', '--workspace', dir, '--journal', path.join(dir, 'journal.jsonl'), ...flags], dir, 240_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('ptc run --no-typecheck (S9.1, issue 12)', { timeout: 300_000 }, () => {
  it('S9.1 a script with a type error runs unchecked and prints its value', async () => {
    const { code, stdout } = await run(script('typed.ts', "const n: number = 'six' as any\nreturn `${n}-${6 * 7}`\n"))
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', value: 'six-42' })
  })

  it("S9.1 a syntax error is a type-error status with a diagnostic at the script's line, exit 1", async () => {
    const { code, stdout } = await run(script('broken.ts', 'const a = 1\nreturn (a\n'))
    expect(code).toBe(1)
    const value = JSON.parse(stdout)
    expect(value).toMatchObject({ status: 'type-error', error: { name: 'SyntaxError' } })
    // At the end of the script's own last line, not on the line after it (the wrapper's `}`, 09b7ee2).
    expect(value.diagnostics[0]).toMatchObject({ line: 2, column: 10, message: 'Expected ")" but the script ended', category: 'error' })
  })

  it('S9.1 an executable script\'s #! first line (after a byte-order mark too) is a comment: the script runs, checked or not, its errors at the lines as written', async () => {
    const name = script('shebang.ts', '#!/usr/bin/env -S ptc run\nconst n: number = 6\nreturn n * 7\n')
    const withBom = script('shebang-bom.ts', '\uFEFF#!/usr/bin/env -S ptc run\nreturn 6 * 7\n')
    // readScript rewrites the line for both paths: one run unchecked, one (after a BOM) checked.
    const [unchecked, bomChecked] = await Promise.all([
      run(name),
      runPtc(['run', withBom, '--json', '--workspace', dir, '--journal', path.join(dir, 'journal-bom.jsonl')], dir, 240_000),
    ])
    for (const outcome of [unchecked, bomChecked]) expect(JSON.parse(outcome.stdout)).toMatchObject({ status: 'ok', value: 42 })
    const typeError = await runPtc(['check', script('shebang-bad.ts', '#!/usr/bin/env -S ptc run\nconst n: number = "six"\n'), '--json', '--workspace', dir], dir, 240_000)
    expect(JSON.parse(typeError.stdout)).toMatchObject({ ok: false, diagnostics: [{ line: 2, column: 7 }] })
  })

  it('S9.1 ptc run - with an empty standard input (closed, /dev/null) is a usage error, not a run of nothing', async () => {
    const outcome = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [PTC_BIN, 'run', '-', '--workspace', dir], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      child.on('exit', (code) => done({ code, stderr }))
    })
    expect(outcome).toEqual({ code: 2, stderr: 'ptc: cannot read a script from standard input: it is empty (closed, or nothing was piped in). Pipe a script in, or name a script file.\n' })
  })

  it('S9.1 an import is refused, as with the type check', async () => {
    const { code, stdout } = await run(script('imports.ts', "const fs = await import('node:fs')\nreturn 1\n"))
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'type-error', error: { message: expect.stringContaining(NO_IMPORTS_MESSAGE) } })
  })

  it('S9.1 --memory-mb gives the isolate its limit, whichever worker runs it', async () => {
    const { code, stdout } = await run(script('heap.ts', 'const a = []\nwhile (true) a.push(new Array(100_000).fill(1))\n'), '--memory-mb', '16')
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'memory' })
  })
})
