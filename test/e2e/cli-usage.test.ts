/**
 * The CLI's answers to a newcomer's mistakes: one clear `ptc:` line and exit code 2, never a
 * stack trace; help on request. Each command accepts only its own flags (issue 14).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PTC_BIN, runPtc } from './ptc-cli.ts'

let dir: string

const ptc = (...args: string[]) => runPtc(args, dir)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-cli-'))
  writeFileSync(join(dir, 'ok.ts'), 'return 1\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ptc usage errors', { timeout: 90_000 }, () => {
  it('an unknown flag is one line with a pointer to --help', async () => {
    const { code, stderr } = await ptc('run', 'ok.ts', '--bogus')
    expect(code).toBe(2)
    expect(stderr).toBe("ptc: Unknown option '--bogus'. Run ptc run --help for its flags.\n")
  })

  it('a flag of another command is a usage error, not silently ignored', async () => {
    const run = await ptc('run', 'ok.ts', '--port', '5', '--expose-tools', '--compact')
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: "ptc: Unknown option '--port'. Run ptc run --help for its flags.\n" })
    const check = await ptc('check', '--no-typecheck', 'ok.ts')
    expect(check).toMatchObject({ code: 2, stderr: "ptc: Unknown option '--no-typecheck'. Run ptc check --help for its flags.\n" })
    const serve = await ptc('serve', '--stdio', '--journal', 'j.jsonl')
    expect(serve).toMatchObject({ code: 2, stderr: "ptc: Unknown option '--journal'. Run ptc serve --help for its flags.\n" })
  })

  it('a --workspace that is not an existing directory is one line, exit 2, and nothing is created', async () => {
    const missing = join(dir, 'no-such-folder')
    const { code, stdout, stderr } = await ptc('run', 'ok.ts', '--workspace', missing)
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    expect(stderr).toBe(`ptc: --workspace ${missing} is not an existing directory. Name a folder that exists.\n`)
    expect(existsSync(missing)).toBe(false)
    const file = await ptc('check', 'ok.ts', '--workspace', join(dir, 'ok.ts'))
    expect(file.code).toBe(2)
    expect(file.stderr).toMatch(/^ptc: --workspace .*ok\.ts is not an existing directory\./)
  })

  it('an unknown command, or a flag before the command, names the commands', async () => {
    const unknown = await ptc('runn', 'ok.ts')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^ptc: Unknown command "runn"\. Commands: .*\brun\b.*\n$/)
    const flagFirst = await ptc('--workspace', dir, 'run', 'ok.ts')
    expect(flagFirst.code).toBe(2)
    expect(flagFirst.stderr).toMatch(/^ptc: Name the command first: ptc COMMAND \[flags\]\. Commands: /)
  })

  it('ptc help COMMAND and ptc COMMAND --help print that command\'s own flags', async () => {
    const help = await ptc('help', 'serve')
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage:\n  ptc serve --stdio \| --http/)
    expect(help.stdout).toContain('--max-sessions')
    expect(help.stdout).not.toContain('--journal')
    const flag = await ptc('run', '--help')
    expect(flag.code).toBe(0)
    expect(flag.stdout).toMatch(/^Usage:\n  ptc run FILE/)
    expect(flag.stdout).toContain('--journal FILE')
  })

  it('ptc help and a usage error load no host module and no dependency; ptc run only its isolate worker starter (issue 12)', async () => {
    // `ptc run` starts its isolate worker before the CLI loads (src/cli/prestart-run.ts): the
    // modules that start a worker process, and nothing of the host.
    const workerStarter = /\/src\/(ptc\/isolate\/(worker-start|worker-stack|run-limits|v8-oom-report)|ptc\/(worker-channel|guarded-delivery|host-frames|frame-reader|json-frames))\./
    for (const args of [['help'], ['check', 'ok.ts', '--port', '5'], ['run', 'ok.ts', '--port', '5'], ['run', 'ok.ts', '--workspace', join(dir, 'none')]]) {
      const record = join(dir, 'loads.txt')
      const fixture = join(import.meta.dirname, '../fixtures/record-module-loads.mjs')
      await new Promise<void>((done) => {
        execFile(process.execPath, ['--import', fixture, PTC_BIN, ...args], { cwd: dir, env: { ...process.env, PTC_RECORD_LOADS: record } }, () => done())
      })
      const loaded = readFileSync(record, 'utf8').split('\n').filter((url) => url.startsWith('file:'))
      expect(loaded.some((url) => url.includes('/src/cli/main.'))).toBe(true)
      // serve-defaults.ts is the server's constants only, kept import-free for the help text.
      const heavy = (url: string) => url.includes('/node_modules/') || (/\/src\/(host|ptc|server|policy|tools|pipeline)\//.test(url) && !url.includes('/serve-defaults.'))
      expect(loaded.filter(heavy).filter((url) => args[0] !== 'run' || !workerStarter.test(url))).toEqual([])
      if (args[0] === 'run') expect(loaded.filter((url) => workerStarter.test(url)).length).toBeGreaterThan(0)
    }
  })

  it('an extra file argument is refused instead of silently ignored', async () => {
    const { code, stderr } = await ptc('run', 'ok.ts', 'extra.ts', '--workspace', dir)
    expect(code).toBe(2)
    expect(stderr).toBe('ptc: ptc run takes one file argument; unexpected: extra.ts.\n')
  })

  it('ptc help prints the usage', async () => {
    const { code, stdout } = await ptc('help')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^ptc: run TypeScript that calls tools/)
  })

  it('typegen -o into a missing folder is a clear error and leaves no temp file', async () => {
    const { code, stderr } = await ptc('typegen', '--workspace', dir, '-o', join(dir, 'missing', 'tools.d.ts'))
    expect(code).toBe(2)
    expect(stderr).toMatch(/^ptc: Cannot write .*tools\.d\.ts: ENOENT\. Check that its folder exists and is writable\.\n$/)
  })

  it('a --journal in a folder that does not exist is one line, exit 2, and no folder is made', async () => {
    const { code, stderr } = await ptc('run', 'ok.ts', '--workspace', dir, '--journal', join(dir, 'path', 'in', 'missing', 'x.jsonl'))
    expect(code).toBe(2)
    expect(stderr).toMatch(/^ptc: Cannot write the journal .*x\.jsonl: its folder .*missing does not exist\. Create the folder first, or name a file in an existing folder \(the journal option; --journal for ptc\)\.\n$/)
    expect(existsSync(join(dir, 'path'))).toBe(false)
  })

  it('an unwritable --journal stops the run before anything runs', async () => {
    writeFileSync(join(dir, 'afile'), 'not a folder')
    const { code, stderr } = await ptc('run', 'ok.ts', '--workspace', dir, '--journal', join(dir, 'afile', 'j.jsonl'))
    expect(code).toBe(2)
    expect(stderr).toMatch(/^ptc: Cannot write the journal .*afile\/j\.jsonl: its folder .*afile is not a directory\. Create the folder first, or name a file in an existing folder \(the journal option; --journal for ptc\)\.\n$/)
  })

  describe('serve', () => {
    let busy: Server
    let port: number
    beforeAll(async () => {
      busy = createServer()
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
      port = (busy.address() as { port: number }).port
    })
    afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())))

    it('--checkers takes a positive whole number: 0 is one ptc: line and exit 2', async () => {
      expect(await ptc('serve', '--stdio', '--checkers', '0')).toMatchObject({ code: 2, stderr: 'ptc: --checkers takes a positive whole number, got "0".\n' })
    })

    it('a port already in use is a clear start-up error, not an internal error', async () => {
      const { code, stderr } = await ptc('serve', '--http', '--port', String(port), '--workspace', dir)
      expect(code).toBe(2)
      expect(stderr).toContain(`ptc: Cannot listen on 127.0.0.1:${port}: the port is already in use.`)
      expect(stderr).not.toContain('internal error')
    })
  })
})
