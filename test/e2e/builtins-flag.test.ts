/**
 * `--builtins LIST` on `ptc run`, `check`, `typegen` and `serve` (issue 11 item 5, issue 14 item
 * 4): the groups named are the tools a script can call and the tools declared; a bad value is a
 * usage error (exit 2, one line).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'
import { SERVE_TOOLS, stdioClient } from './serve-helpers.ts'

let dir: string
const ptc = (...args: string[]) => runPtc(args, dir)
const BUILTIN_NAMES = ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'search', 'bash', 'job_list', 'job_read', 'job_kill']

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-builtins-flag-'))
  writeFileSync(join(dir, 'echo.ts'), "return (await tools.echo({ text: 'hi' })).text\n")
  writeFileSync(join(dir, 'bash.ts'), "return (await tools.bash({ command: 'echo hi' })).stdout\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('--builtins LIST', { timeout: 120_000 }, () => {
  it('a bad value is one usage line, exit 2, on every command that takes it', async () => {
    for (const args of [['run', 'echo.ts'], ['check', 'echo.ts'], ['typegen'], ['serve', '--stdio']]) {
      const bad = await ptc(...args, '--builtins', 'fs,shell')
      expect(bad).toEqual({ code: 2, stdout: '', stderr: 'ptc: --builtins: unknown group "shell"; use none or a comma-separated list of fs, bash, jobs.\n' })
    }
    const empty = await ptc('typegen', '--builtins', '')
    expect(empty).toMatchObject({ code: 2, stderr: 'ptc: --builtins takes none or a comma-separated list of fs, bash, jobs; got "".\n' })
  })

  it('ptc typegen --builtins none --tools MODULE declares the module\'s tools and no built-in', async () => {
    const { code, stdout } = await ptc('typegen', '--builtins', 'none', '--tools', SERVE_TOOLS)
    expect(code).toBe(0)
    expect(stdout).toMatch(/\becho\b/)
    for (const name of BUILTIN_NAMES) expect(stdout).not.toMatch(new RegExp(`\\b${name}\\b`))
    const jobsOnly = await ptc('typegen', '--builtins', 'jobs')
    expect(jobsOnly.stdout).toMatch(/\bjob_read\b/)
    expect(jobsOnly.stdout).not.toMatch(/\bread_file\b|\bbash\b/)
  })

  it('ptc run --builtins none runs a plugin tool, and a left-out built-in is not callable', async () => {
    const ok = await ptc('run', 'echo.ts', '--json', '--builtins', 'none', '--tools', SERVE_TOOLS)
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: 'ok', value: 'hi' })
    const refused = await ptc('run', 'bash.ts', '--json', '--builtins', 'fs,jobs')
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'type-error' })
    const checked = await ptc('check', 'bash.ts', '--builtins', 'fs')
    expect(checked.code).toBe(1)
    expect(checked.stdout).toMatch(/bash/)
    expect((await ptc('check', 'bash.ts', '--builtins', 'bash')).code).toBe(0)
  })

  it('ptc serve --builtins none lists run_code (and no job tools) whose description declares only the imported tools', async () => {
    const client = await stdioClient(['--workspace', dir, '--builtins', 'none', '--tools', SERVE_TOOLS, '--checkers', '1'])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['run_code'])
      const description = tools[0]!.description ?? ''
      expect(description).toMatch(/\becho\b/)
      for (const name of BUILTIN_NAMES) expect(description).not.toMatch(new RegExp(`\\b${name}\\b`))
      const result = await client.callTool({ name: 'run_code', arguments: { code: "return (await tools.echo({ text: 'served' })).text" } })
      expect(result.structuredContent).toMatchObject({ status: 'ok', value: 'served' })
    } finally {
      await client.close()
    }
  })
})
