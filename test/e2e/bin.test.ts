/**
 * `bin/ptc.js` as MCP clients and shells start it: `node bin/ptc.js …` without
 * `--no-node-snapshot` re-runs itself with the flag for commands that load isolates (issue 14).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PTC_BIN } from './ptc-cli.ts'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-bin-'))
  writeFileSync(join(dir, 'ok.ts'), 'return 6 * 7\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('bin/ptc.js', { timeout: 90_000 }, () => {
  it('started without --no-node-snapshot, runs a script by re-running itself with the flag', async () => {
    const { code, stdout, stderr } = await node([PTC_BIN, 'run', 'ok.ts', '--json', '--workspace', dir])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', value: 42 })
  })
})
