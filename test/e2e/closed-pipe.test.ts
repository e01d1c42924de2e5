/**
 * `ptc run big.ts | head -c 20`: a reader that closes stdout early must not crash the command
 * (an unhandled EPIPE, exit 1 although the run succeeded); the rest of the output is dropped and
 * the command ends with its own exit code. Output that cannot be written for another reason (a
 * full disk: Linux's `/dev/full`) fails a command that would have exited 0, saying so.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PTC_BIN } from './ptc-cli.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-closed-pipe-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('ptc run with a closed stdout', { timeout: 120_000 }, () => {
  it('S9.1 ptc run: a reader that closes stdout after 20 bytes leaves the command exit 0, with no EPIPE crash', async () => {
    fs.writeFileSync(path.join(dir, 'big.ts'), 'return "x".repeat(5_000_000)\n')
    const child = spawn(process.execPath, [PTC_BIN, 'run', 'big.ts', '--no-typecheck', '--workspace', dir], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const [first] = (await once(child.stdout, 'data')) as [Buffer]
    expect(first.toString('utf8', 0, 3)).toBe('"xx')
    child.stdout.destroy() // as `head -c 20` does once it has its bytes
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error'/)
    expect(code).toBe(0)
  })

  it.skipIf(!fs.existsSync('/dev/full'))('ptc help and ptc run --json with stdout on a full disk exit 1 and say the output could not be written; with stderr full too, exit 1', async () => {
    fs.writeFileSync(path.join(dir, 'one.ts'), 'return 1\n')
    const full = fs.openSync('/dev/full', 'w')
    try {
      for (const [args, stderrFd] of [[['help'], 'pipe'], [['run', 'one.ts', '--json', '--no-typecheck', '--workspace', dir, '--journal', path.join(dir, 'j.jsonl')], 'pipe'], [['help'], full]] as const) {
        const child = spawn(process.execPath, [PTC_BIN, ...args], { cwd: dir, stdio: ['ignore', full, stderrFd] })
        let stderr = ''
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        const [code] = (await once(child, 'exit')) as [number | null]
        expect(code, args.join(' ')).toBe(1)
        if (stderrFd === 'pipe') expect(stderr).toBe('ptc: could not write the output: ENOSPC: no space left on device, write.\n')
      }
    } finally {
      fs.closeSync(full)
    }
  })
})
