/**
 * `ptc run --json` when run_code itself fails (refused by policy here; a type checker that cannot
 * start ends the same way): stdout still holds one JSON status object, and the exit code is 1;
 * after Ctrl-C it is 130.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PTC_BIN, runPtc } from './ptc-cli.ts'

const DENY = path.resolve(import.meta.dirname, '../fixtures/deny-run-code.ts')
const STUBBORN = path.resolve(import.meta.dirname, '../fixtures/stubborn-tools.ts')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-run-failed-'))
fs.writeFileSync(path.join(dir, 'ok.ts'), 'return 1\n')
fs.writeFileSync(path.join(dir, 'stubborn.ts'), 'await tools.stubborn({})\n')
fs.writeFileSync(path.join(dir, 'forever.ts'), "await tools.list_dir({ path: '.' })\nawait new Promise(() => {})\n")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('ptc run when run_code fails', { timeout: 300_000 }, () => {
  it('S9.4 --json prints {"status":"failed"} with the error kind and message, and the one-line reason on stderr', async () => {
    const { code, stdout, stderr } = await runPtc(['run', 'ok.ts', '--json', '--workspace', dir, '--tools', DENY], dir, 240_000)
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toEqual({ status: 'failed', error: { kind: 'denied', message: expect.stringContaining('fixture: no scripts here') } })
    expect(stderr).toMatch(/^ptc: run_code failed: .*fixture: no scripts here.*\n$/)
  })

  it('S9.4 without --json nothing is printed on stdout', async () => {
    const { code, stdout, stderr } = await runPtc(['run', 'ok.ts', '--workspace', dir, '--tools', DENY], dir, 240_000)
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' })
    expect(stderr).toContain('ptc: run_code failed: ')
  })

  it('S9.4 Ctrl-C (SIGINT) cancels the run, says it was cancelled (not failed) and exits 130, as a shell reports an interrupted command', async () => {
    const child = spawn(process.execPath, [PTC_BIN, 'run', 'forever.ts', '--no-typecheck', '--workspace', dir], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    // The script is running once the completed card of its first call (✓ …) is printed.
    while (!stderr.includes('✓')) await new Promise((resolve) => setTimeout(resolve, 20))
    child.kill('SIGINT')
    const [code] = await once(child, 'exit')
    expect(code).toBe(130)
    // What the script did before the cancel stands: the message must not read as if nothing was done.
    expect(stderr).toMatch(/^ptc: cancelled \(Ctrl-C\): The tool call was cancelled before it finished; what it had already done stands \(for run_code: the tool calls its script had made\)/m)
  })

  it('S9.4 a Ctrl-C sent twice to the whole process group, as a terminal and `timeout` do, still ends cancelled: the --json answer, exit 130, and a result in the journal for every call', async () => {
    const journal = path.join(dir, 'twice.jsonl')
    // Its own process group, with the isolate worker and checkers it forks: a terminal's Ctrl-C reaches them all.
    const child = spawn(process.execPath, [PTC_BIN, 'run', 'forever.ts', '--json', '--no-typecheck', '--workspace', dir, '--journal', journal], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    let exitCode: number | null | undefined
    const exited = once(child, 'exit').then(([code]) => (exitCode = code as number | null))
    const started = () => fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').includes('"list_dir"') && fs.readFileSync(journal, 'utf8').split('\n').some((line) => line.includes('"tool/result"') && line.includes('"list_dir"'))
    // Not past the child's own end: a run that never started fails here with what the child said.
    while (!started() && exitCode === undefined) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(exitCode, `ptc run ended before its script's first call was journaled; stderr: ${stderr}`).toBeUndefined()
    process.kill(-child.pid!, 'SIGINT')
    // The second while the first's cancel is under way (two at once are one signal to Node).
    await new Promise((resolve) => setTimeout(resolve, 10))
    process.kill(-child.pid!, 'SIGINT')
    // A safety net only (the test's own limit is 300 s): a child that does not end is killed and the test says so, with its stderr.
    const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000)
    await exited
    clearTimeout(killer)
    expect(exitCode, `ptc run did not end after two Ctrl-C; stdout: ${stdout}; stderr: ${stderr}`).toBe(130)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'failed', error: { kind: 'cancelled' } })
    const records = fs.readFileSync(journal, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; callId?: string })
    const calls = records.filter((record) => record.type === 'tool/call').map((record) => record.callId)
    const results = records.filter((record) => record.type === 'tool/result').map((record) => record.callId)
    expect(calls.length).toBeGreaterThan(1)
    expect([...results].sort()).toEqual([...calls].sort())
  })

  it('S9.7 ptc run exits after its answer even when a plugin tool ignores its abort signal and leaves a timer running', async () => {
    // Killed after 60 s: without the exit, the plugin's interval and pending promise keep the process alive forever.
    const { code, stdout } = await runPtc(['run', 'stubborn.ts', '--json', '--no-typecheck', '--timeout-ms', '500', '--workspace', dir, '--tools', STUBBORN], dir, 60_000)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'timeout', toolCalls: 1 })
    expect(code).toBe(1)
  })
})
