/**
 * `ptc check` (S7.2): `--json`, one JSON object on stdout for editors and CI, whatever the
 * outcome, with the exit code of the plain form; Ctrl-C stops the checker with ptc.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recursiveTypesScript } from '../fixtures/attack-scripts.ts'
import { childPids, isRunning } from '../helpers/process-alive.ts'
import { PTC_BIN, runPtc } from './ptc-cli.ts'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-check-json-'))
  writeFileSync(join(dir, 'ok.ts'), 'const n: number = 1\nreturn n\n')
  writeFileSync(join(dir, 'bad.ts'), "const n: number = 'one'\nawait tools.no_such_tool({})\nreturn n\n")
  writeFileSync(join(dir, 'slow.ts'), recursiveTypesScript())
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

  it('S7.2 Ctrl-C during a long check exits 130 and stops the checker process with ptc (it kept checking for a minute, orphaned)', async () => {
    const child = spawn(process.execPath, [PTC_BIN, 'check', 'slow.ts', '--builtins', 'none'], { cwd: dir, stdio: 'ignore' })
    const exited = once(child, 'exit')
    let checkers: number[] = []
    while (checkers.length === 0 && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      checkers = childPids('checker-worker-entry', child.pid)
    }
    expect(checkers.length).toBeGreaterThan(0)
    // Let the checker get into the script's types.
    await new Promise((resolve) => setTimeout(resolve, 500))
    child.kill('SIGINT')
    const [code] = await exited
    expect(code).toBe(130)
    // SIGKILLed by the exit hook: gone at once, though its check had most of 30 s to go (ended; init reaps
    // the orphan a second or more later).
    for (let waited = 0; checkers.some(isRunning) && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(checkers.filter(isRunning)).toEqual([])
  })
})
