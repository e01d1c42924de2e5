/**
 * `ptc run` without a terminal on stdin (S8.2): a call that needs approval cannot be asked about,
 * so it is not made, and its error says why (stdin is not a terminal, or the script was read from
 * it) and what a CLI user can do (answer at a terminal, pass the script as a file, or choose a
 * --preset), not how a program registers a responder.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PTC_BIN, runPtc, type PtcOutcome } from './ptc-cli.ts'

/** `ptc ...args` with `input` piped to its stdin (then closed), as `cat x.ts | ptc run -`. */
function runPtcWithInput(args: readonly string[], cwd: string, input: string, timeoutMs: number): Promise<PtcOutcome> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [PTC_BIN, ...args], { cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
    child.stdin?.end(input)
  })
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-run-no-tty-'))
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-run-no-tty-outside-'))
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

describe('ptc run with stdin not a terminal (S8.2)', { timeout: 300_000 }, () => {
  it('S8.2 a call that needs approval is not made, and its error says stdin is not a terminal and to answer at a terminal or choose a --preset', async () => {
    const target = path.join(outside, 'x.txt')
    const code = `try { await tools.write_file({ path: ${JSON.stringify(target)}, content: 'x' }); return 'written' } catch (error) { return (error as Error).message }\n`
    fs.writeFileSync(path.join(dir, 'write-outside.ts'), code)
    // runPtc's stdin is a pipe: not a terminal, as with `</dev/null` or in CI.
    const { code: exit, stdout } = await runPtc(['run', 'write-outside.ts', '--json', '--no-typecheck', '--workspace', dir, '--journal', path.join(dir, 'journal.jsonl')], dir, 240_000)
    expect(exit).toBe(0)
    const message = (JSON.parse(stdout) as { value: string }).value
    expect(message).toMatch(/the approval could not be obtained, so the call was not made \(nobody refused it\): ptc run's standard input is not a terminal, so no approval prompt could be shown\./)
    expect(message).toMatch(/at a terminal.*--preset that allows/)
    expect(message).not.toMatch(/ctx\.approval\.respond|no approval responder answered/)
    expect(fs.existsSync(target)).toBe(false)
  })

  it('S8.2 ptc run - (the script read from stdin): a call that needs approval is not made, and its error says the script came from stdin, to pass it as a file or choose a --preset', async () => {
    const target = path.join(outside, 'from-stdin.txt')
    const code = `try { await tools.write_file({ path: ${JSON.stringify(target)}, content: 'x' }); return 'written' } catch (error) { return (error as Error).message }\n`
    const { code: exit, stdout } = await runPtcWithInput(['run', '-', '--json', '--no-typecheck', '--workspace', dir, '--journal', path.join(dir, 'journal-stdin.jsonl')], dir, code, 240_000)
    expect(exit).toBe(0)
    const message = (JSON.parse(stdout) as { value: string }).value
    expect(message).toMatch(/the approval could not be obtained, so the call was not made \(nobody refused it\): the script was read from standard input, so no approval prompt can be answered\./)
    expect(message).toMatch(/pass the script as a file.*--preset that allows/)
    expect(fs.existsSync(target)).toBe(false)
  })
})
