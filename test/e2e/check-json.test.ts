/**
 * `ptc check --json` (S7.2): one JSON object on stdout for editors and CI, whatever the outcome,
 * with the exit code of the plain form.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-check-json-'))
  writeFileSync(join(dir, 'ok.ts'), 'const n: number = 1\nreturn n\n')
  writeFileSync(join(dir, 'bad.ts'), "const n: number = 'one'\nawait tools.no_such_tool({})\nreturn n\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ptc check --json (S7.2)', { timeout: 90_000 }, () => {
  it('S7.2 a script with type errors: ok false, each diagnostic with line, column, category, TypeScript code and message; exit 1', async () => {
    const { code, stdout, stderr } = await runPtc(['check', 'bad.ts', '--json', '--builtins', 'none'], dir)
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' })
    const printed = JSON.parse(stdout) as { ok: boolean; diagnostics: Record<string, unknown>[] }
    expect(stdout.endsWith('}\n')).toBe(true)
    expect(printed.ok).toBe(false)
    expect(printed.diagnostics[0]).toEqual({ line: 1, column: 7, category: 'error', code: 2322, message: "Type 'string' is not assignable to type 'number'." })
    expect(printed.diagnostics[1]).toMatchObject({ line: 2, column: 13, category: 'error', message: expect.stringContaining('no_such_tool') })
    for (const diagnostic of printed.diagnostics) expect(Object.keys(diagnostic).every((key) => ['line', 'column', 'category', 'code', 'message'].includes(key))).toBe(true)
  })

  it('S7.2 a script without errors prints {"ok":true,"diagnostics":[]} and exits 0', async () => {
    const { code, stdout } = await runPtc(['check', '--json', 'ok.ts', '--builtins', 'none'], dir)
    expect({ code, stdout }).toEqual({ code: 0, stdout: '{"ok":true,"diagnostics":[]}\n' })
  })
})
