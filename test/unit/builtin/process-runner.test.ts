import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runProcess } from '../../../src/builtin/process-runner.ts'

const cwd = os.tmpdir()

/** Is `pid` a live process? A zombie (killed, not yet reaped by init) counts as dead. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ESRCH')
    return false
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    return false
  }
}

/**
 * Has `pid` died within `ms`? The kernel closes a killed process's pipes slightly before it turns
 * into a zombie, so a check right after our pipes closed may need a few ms.
 */
async function diesWithin(pid: number, ms = 1000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (alive(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return true
}

/** Poll until `file` has content (a pid the command wrote), within `ms`. */
async function waitForFile(file: string, ms = 3000): Promise<string> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : ''
    if (text) return text
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${file}`)
}

describe('runProcess', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })
  const tmp = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-runner-'))
    dirs.push(dir)
    return dir
  }

  it('S6.5 a non-zero exit is a value, with both streams captured', async () => {
    const result = await runProcess({ argv: ['bash', '-c', 'echo out; echo err >&2; exit 3'], cwd })
    expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', truncated: false, timedOut: false, aborted: false })
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('S6.5 a program that does not exist rejects with a clear error', async () => {
    await expect(runProcess({ argv: ['ptc-no-such-program-xyz'], cwd })).rejects.toThrow(/cannot run ptc-no-such-program-xyz .*not found/)
  })

  it('S1.3 aborting kills the whole process group, background children included', async () => {
    const dir = tmp()
    const pidFile = path.join(dir, 'pid')
    const controller = new AbortController()
    const running = runProcess({ argv: ['bash', '-c', `sleep 30 & echo $! > ${pidFile}; wait`], cwd, signal: controller.signal, killGraceMs: 500 })
    const childPid = Number(await waitForFile(pidFile))
    expect(alive(childPid)).toBe(true)
    controller.abort()
    const result = await running
    expect(result.aborted).toBe(true)
    expect(result.signal).toBe('SIGTERM')
    expect(await diesWithin(childPid)).toBe(true)
  })

  it('S1.3 a command that ignores SIGTERM is still killed at its deadline (SIGKILL after the grace)', async () => {
    const started = Date.now()
    const result = await runProcess({ argv: ['bash', '-c', "trap '' TERM; sleep 30"], cwd, timeoutMs: 300, killGraceMs: 300 })
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' })
    expect(Date.now() - started).toBeLessThan(30_000) // before the sleep would have ended by itself
  })

  it('S6.5 no background child outlives a command that exits normally', async () => {
    const dir = tmp()
    const pidFile = path.join(dir, 'pid')
    const result = await runProcess({ argv: ['bash', '-c', `sleep 30 & echo $! > ${pidFile}; echo done`], cwd })
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n' })
    expect(result.durationMs).toBeLessThan(30_000) // the background sleep was not waited for
    expect(await diesWithin(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(true)
  })

  it('output is capped at maxOutputBytes (head kept), with the total counted and truncation noted', async () => {
    const chunks: string[] = []
    const result = await runProcess({
      argv: ['bash', '-c', 'head -c 100000 /dev/zero | tr "\\0" a'],
      cwd,
      maxOutputBytes: 1000,
      onOutput: (chunk) => chunks.push(chunk),
    })
    expect(result.stdout).toBe('a'.repeat(1000))
    expect(result.truncated).toBe(true)
    expect(result.outputBytes.stdout).toBe(100000)
    expect(chunks.join('').length).toBe(100000)
  })

  it('an already-aborted signal spawns nothing and rejects with its reason', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stopped by user'))
    await expect(runProcess({ argv: ['true'], cwd, signal: controller.signal })).rejects.toThrow('stopped by user')
  })

  it('input is written to stdin', async () => {
    const result = await runProcess({ argv: ['cat'], cwd, input: 'hello' })
    expect(result.stdout).toBe('hello')
  })
})
