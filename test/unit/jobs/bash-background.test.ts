/**
 * `bash` with `background: true` (S10): the background branch publishes a job whose producer runs
 * the sandboxed command on the job's own signal; foreground bash stays tied to the call's signal.
 */
import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as jobTools from '../../../src/jobs/job-tools.ts'
import { Jobs } from '../../../src/jobs/jobs.ts'
import { tick } from '../../helpers/registry.ts'
import { contentText, type WorkspaceFixture, workspaceFixture } from '../builtin/workspace-fixture.ts'

let ws: WorkspaceFixture
let jobsFiber: ReturnType<WorkspaceFixture['root']['plugin']>
beforeEach(async () => {
  ws = await workspaceFixture()
  jobsFiber = ws.root.plugin(Jobs, { killWaitMs: 5000 })
  await jobsFiber
  await ws.root.plugin(jobTools)
})
afterEach(async () => {
  await jobsFiber.dispose()
  ws.cleanup()
})

/** Host pids of `sleep <seconds>` running in `cwd` now. */
function sleepersNow(seconds: string, cwd: string): string[] {
  return fs.readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\u0000${seconds}\u0000` && fs.readlinkSync(`/proc/${pid}/cwd`) === cwd
    } catch {
      return false
    }
  })
}

/** Host pids of `sleep <seconds>` running in `cwd` (after giving a kill time to land). */
async function sleepers(seconds: string, cwd: string, settleMs = 4000): Promise<string[]> {
  for (let waited = 0; waited < settleMs && sleepersNow(seconds, cwd).length > 0; waited += 100) await tick(100)
  return sleepersNow(seconds, cwd)
}

/**
 * Host pids of `sleep <seconds>` running in `cwd`, once one has started. A background command
 * starts through the sandbox (bwrap, bash) in as long as the machine's load makes it: a fixed
 * 300 ms wait missed it once in a full suite run (an empty list). The limit is only for a command
 * that never starts.
 */
async function startedSleepers(seconds: string, cwd: string, limitMs = 30_000): Promise<string[]> {
  for (let waited = 0; waited < limitMs && sleepersNow(seconds, cwd).length === 0; waited += 50) await tick(50)
  return sleepersNow(seconds, cwd)
}

/** Polls job_read from a cursor (each read waits for news) until `done`; `output` accumulates. */
async function readUntil(jobId: string, done: (read: Record<string, any>) => boolean) {
  let read: Record<string, any> = {}
  let output = ''
  for (let i = 0; i < 50; i++) {
    read = (await ws.call('job_read', { jobId, sinceOffset: read.nextOffset ?? 0, waitMs: 500 })).value as Record<string, any>
    output += read.output
    read = { ...read, output }
    if (done(read)) break
  }
  return read
}

describe('bash background branch (S10)', () => {
  it('S10.6 background: true returns the typed handle {kind: "background", jobId}, and the output streams into the job', async () => {
    const result = await ws.call('bash', { command: 'echo one; echo two >&2; exit 4', background: true })
    expect(result.value).toEqual({ kind: 'background', jobId: 'bash-1' })
    expect(contentText(result)).toBe('Started background job bash-1. Read its output with job_read({jobId: "bash-1"}); stop it with job_kill.')
    const read = await readUntil('bash-1', (value) => value.status !== 'running')
    expect(read).toMatchObject({ jobId: 'bash-1', kind: 'bash', label: 'echo one; echo two >&2; exit 4', status: 'exited', exitCode: 4, signal: null })
    expect(read.output.split('\n').sort()).toEqual(['', 'one', 'two'])
  })

  it('S11.1 a background call: pending terminal card marked background; completed card says it started (no exit status yet)', async () => {
    const tool = ws.root.tools.get('bash')!
    expect(tool.presentCall({ command: 'sleep 1', background: true })).toEqual({ card: 'terminal', phase: 'pending', command: 'sleep 1', background: true })
    const result = await ws.call('bash', { command: 'true', background: true })
    expect(tool.presentResult(result.arguments, result)).toEqual({ card: 'generic', phase: 'completed', title: 'Started background job bash-1: true', kind: 'terminal' })
  })

  it('S10.3 cancelling the outer call after the id is published stops the waiting, not the job', async () => {
    const outer = new AbortController()
    const result = await ws.call('bash', { command: 'echo started; sleep 31', background: true }, { agent: 'agent-1', signal: outer.signal })
    const { jobId } = result.value as { jobId: string }
    outer.abort()
    // A wait on the job from a call that is then cancelled: that call stops, the job does not.
    const waiter = new AbortController()
    const waiting = ws.call('job_read', { jobId, sinceOffset: 1e9, waitMs: 20_000 }, { agent: 'agent-1', signal: waiter.signal })
    await tick(300)
    waiter.abort()
    expect((await waiting).error?.kind).toBe('cancelled')
    const read = await readUntil(jobId, (value) => value.output.includes('started'))
    expect(read).toMatchObject({ status: 'running', output: 'started\n' })
    expect(await startedSleepers('31', ws.workspace)).toHaveLength(1)
    expect((await ws.call('job_kill', { jobId })).value).toMatchObject({ killed: true, status: 'killed' })
    expect(await sleepers('31', ws.workspace)).toEqual([])
  })

  it('S10.2 a background call whose signal is already aborted fails before the producer body: no job, no id', async () => {
    const outer = new AbortController()
    outer.abort()
    const result = await ws.call('bash', { command: 'sleep 32', background: true }, { agent: 'agent-1', signal: outer.signal })
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled' } })
    expect(ws.root.jobs.list('agent-1')).toEqual([])
  })

  it('S10.2 a background call cancelled while its command is being prepared publishes no job', async () => {
    const outer = new AbortController()
    // Abort right after the body started (while the sandbox wraps the command), before jobs.start.
    ws.root.on('tools/execute', (_execution, next) => {
      const running = next()
      queueMicrotask(() => outer.abort())
      return running
    })
    const result = await ws.call('bash', { command: 'sleep 33', background: true }, { agent: 'agent-1', signal: outer.signal })
    expect(result.error?.kind).toBe('cancelled')
    await tick(300)
    expect(ws.root.jobs.list('agent-1')).toEqual([])
    expect(await sleepers('33', ws.workspace, 0)).toEqual([])
  })

  it('S10.4 foreground bash stays coupled to the call signal: cancelling the call kills the command', async () => {
    const outer = new AbortController()
    const running = ws.call('bash', { command: 'sleep 34' }, { agent: 'agent-1', signal: outer.signal })
    await tick(300)
    outer.abort()
    const result = await running
    expect(result.error?.kind).toBe('cancelled')
    expect(await sleepers('34', ws.workspace)).toEqual([])
    expect(ws.root.jobs.list('agent-1')).toEqual([])
  })

  it('S10.5 owner dispose kills the session\'s bash jobs', async () => {
    const { jobId } = (await ws.call('bash', { command: 'sleep 35', background: true })).value as { jobId: string }
    await readUntil(jobId, () => true)
    await ws.root.jobs.disposeOwner('agent-1')
    expect(await sleepers('35', ws.workspace)).toEqual([])
  })

  it('S10.5 service teardown kills running bash jobs', async () => {
    await ws.call('bash', { command: 'sleep 36', background: true })
    expect(await startedSleepers('36', ws.workspace)).toHaveLength(1)
    await jobsFiber.dispose()
    expect(await sleepers('36', ws.workspace)).toEqual([])
  })

  it('S10.5 job_kill from another session is "no job X" and the command keeps running', async () => {
    const { jobId } = (await ws.call('bash', { command: 'sleep 37', background: true })).value as { jobId: string }
    expect(await startedSleepers('37', ws.workspace)).toHaveLength(1)
    const other = await ws.call('job_kill', { jobId }, { agent: 'agent-2' })
    expect(other.error?.message).toContain(`no job "${jobId}"`)
    // Time for a wrong kill to land.
    await tick(300)
    expect(sleepersNow('37', ws.workspace)).toHaveLength(1)
    await ws.call('job_kill', { jobId })
    expect(await sleepers('37', ws.workspace)).toEqual([])
  })
})
