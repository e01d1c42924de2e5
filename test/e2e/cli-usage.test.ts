/**
 * The CLI's answers to a newcomer's mistakes: one clear `ptc:` line and exit code 2, never a
 * stack trace; help on request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'

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
    expect(stderr).toBe("ptc: Unknown option '--bogus'. Run ptc --help for the commands and their flags.\n")
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

  it('an unwritable --journal stops the run before anything runs', async () => {
    writeFileSync(join(dir, 'afile'), 'not a folder')
    const { code, stderr } = await ptc('run', 'ok.ts', '--workspace', dir, '--journal', join(dir, 'afile', 'j.jsonl'))
    expect(code).toBe(2)
    expect(stderr).toMatch(/^ptc: Cannot write the journal .*afile\/j\.jsonl: .*Name a writable file with --journal\.\n$/)
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

    it('a port already in use is a clear start-up error, not an internal error', async () => {
      const { code, stderr } = await ptc('serve', '--http', '--port', String(port), '--workspace', dir)
      expect(code).toBe(2)
      expect(stderr).toContain(`ptc: Cannot listen on 127.0.0.1:${port}: the port is already in use.`)
      expect(stderr).not.toContain('internal error')
    })
  })
})
