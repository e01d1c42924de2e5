/**
 * `ptc run` starts its isolate worker from the bin script, before the CLI's modules load (issue
 * 12: start-up, S9.1): a run is answered, and a command line that turns out to be a usage error
 * (no such script) exits 2 and leaves no worker process behind. A Ctrl-C while it starts (sent
 * by a tool module to its own process as the host loads it, or while it waits for its script on
 * standard input) ends it at once with the `--json` cancelled answer and exit code 130. The CLI's processes are found by
 * a marker in their environment, which the worker inherits. Order and outcome only.
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { INTERRUPTED_BEFORE_RUN } from '../../src/cli/early-interrupt.ts'
import { PTC_BIN, type PtcOutcome } from './ptc-cli.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-run-prestart-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

function ptcMarked(args: readonly string[], mark: string): Promise<PtcOutcome> {
  return new Promise((done) => {
    execFile(process.execPath, [PTC_BIN, ...args], { cwd: workspace, timeout: 60_000, env: { ...process.env, PTC_TEST_RUN_MARK: mark } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** Pids of the isolate worker processes whose environment carries `mark`. */
function markedWorkers(mark: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('isolate-worker-entry')) continue
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`PTC_TEST_RUN_MARK=${mark}`)) pids.push(Number(entry))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids
}

describe.skipIf(process.platform !== 'linux')('ptc run prestarts its isolate worker (issue 12, S9.1)', { timeout: 120_000 }, () => {
  it('S9.1 a run with --memory-mb is answered', async () => {
    writeFileSync(join(workspace, 'six.ts'), 'return 6 * 7\n')
    const outcome = await ptcMarked(['run', 'six.ts', '--json', '--no-typecheck', '--memory-mb', '64', '--journal', join(workspace, 'j.jsonl')], `ok-${process.pid}`)
    expect(outcome.stderr).toBe('')
    expect(JSON.parse(outcome.stdout)).toMatchObject({ status: 'ok', value: 42 })
    await expect.poll(() => markedWorkers(`ok-${process.pid}`)).toEqual([])
  })

  it('S9.1 a usage error found after the worker started exits 2 and leaves no worker process behind', async () => {
    const mark = `missing-${process.pid}`
    const outcome = await ptcMarked(['run', 'no-such-script.ts'], mark)
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toMatch(/^ptc: .*no-such-script\.ts/)
    await expect.poll(() => markedWorkers(mark)).toEqual([])
  })

  it('S9.1 a Ctrl-C (SIGINT) that comes while the host starts cancels the run: the --json answer and exit code 130', async () => {
    writeFileSync(join(workspace, 'interrupting-tools.mjs'), "process.kill(process.pid, 'SIGINT')\nexport default []\n")
    writeFileSync(join(workspace, 'forever.ts'), 'while (true) {}\n')
    const mark = `interrupt-${process.pid}`
    const outcome = await ptcMarked(['run', 'forever.ts', '--json', '--no-typecheck', '--tools', 'interrupting-tools.mjs', '--journal', join(workspace, 'j2.jsonl')], mark)
    expect(outcome.code).toBe(130)
    // Node delivers the signal on a later turn of the event loop: before the run took it (the
    // early answer) or just after (the run's own cancellation); either is a cancelled run.
    expect(JSON.parse(outcome.stdout)).toMatchObject({ status: 'failed', error: { kind: 'cancelled' } })
    await expect.poll(() => markedWorkers(mark)).toEqual([])
  })

  it('S9.1 a Ctrl-C while ptc run - waits for its script on standard input ends it at once: exit code 130, no worker left', async () => {
    const mark = `stdin-${process.pid}`
    const child = spawn(process.execPath, [PTC_BIN, 'run', '-', '--json'], { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PTC_TEST_RUN_MARK: mark } })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    try {
      // The worker is forked after the bin script began watching for Ctrl-C.
      await expect.poll(() => markedWorkers(mark).length, { timeout: 30_000 }).toBe(1)
      child.kill('SIGINT')
      const [code] = (await once(child, 'exit')) as [number | null]
      expect(code).toBe(130)
      expect(JSON.parse(stdout)).toEqual({ status: 'failed', error: { kind: 'cancelled', message: INTERRUPTED_BEFORE_RUN } })
      await expect.poll(() => markedWorkers(mark)).toEqual([])
    } finally {
      child.kill('SIGKILL')
    }
  })
})
