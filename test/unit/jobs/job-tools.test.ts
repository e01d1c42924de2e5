import type { Context } from 'cordis'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { backgroundJobSchema } from '../../../src/jobs/job-schemas.ts'
import * as jobTools from '../../../src/jobs/job-tools.ts'
import { Jobs } from '../../../src/jobs/jobs.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { createRoot, text, tick } from '../../helpers/registry.ts'

/** A stand-in background tool: starts a job that writes a line every 10 ms until killed. */
function tickerTool(ctx: Context, state: { killed: number }) {
  return defineTool({
    name: 'ticker',
    description: 'Start a background ticker.',
    parameters: z.strictObject({ lines: z.number().int() }),
    output: { schema: backgroundJobSchema, render: (_args, value) => [{ type: 'text', text: `started ${value.jobId}` }] },
    execute: (args, exec) => {
      const { jobId } = ctx.jobs.start({
        kind: 'ticker',
        label: `tick ${args.lines}`,
        owner: exec.agent,
        signal: exec.signal,
        run: ({ signal, write }) =>
          new Promise((resolve) => {
            let n = 0
            const timer = setInterval(() => {
              if (n < args.lines) write(`tick ${++n}\n`)
            }, 10)
            signal.addEventListener('abort', () => {
              clearInterval(timer)
              state.killed++
              resolve({ exitCode: null, signal: 'SIGTERM' })
            })
          }),
      })
      return { kind: 'background' as const, jobId }
    },
  })
}

async function setup() {
  const root = await createRoot()
  await root.plugin(Jobs)
  await root.plugin(jobTools)
  const state = { killed: 0 }
  const fiber = root.plugin({ name: 'ticker', inject: ['tools', 'jobs'], apply: (ctx: Context) => void ctx.tools.register(tickerTool(ctx, state)) })
  await fiber
  /** `agent: null` calls without an agent. */
  const call = (name: string, args: unknown, agent: string | null = 'alice', signal?: AbortSignal) =>
    root.tools.execute({ name, arguments: args }, { ...(agent !== null && { agent }), ...(signal && { signal }) })
  return { root, state, call }
}

const valueOf = (result: ToolResult) => {
  expect(result.error?.message).toBeUndefined()
  return result.value as Record<string, any>
}

describe('job_* tools (S10.6)', () => {
  it('S10.6 a background start returns a typed handle and job_read/job_list/job_kill work by that id', async () => {
    const { call } = await setup()
    const started = valueOf(await call('ticker', { lines: 3 }))
    expect(started).toEqual({ kind: 'background', jobId: 'ticker-1' })
    const read = valueOf(await call('job_read', { jobId: started.jobId, waitMs: 2000 }))
    expect(read).toMatchObject({ jobId: 'ticker-1', kind: 'ticker', label: 'tick 3', status: 'running', offset: 0, exitCode: null })
    expect(read.output).toMatch(/^tick 1\n/)
    const list = valueOf(await call('job_list', {}))
    expect(list).toEqual([expect.objectContaining({ jobId: 'ticker-1', kind: 'ticker', label: 'tick 3', status: 'running' })])
    const killed = valueOf(await call('job_kill', { jobId: 'ticker-1' }))
    expect(killed).toMatchObject({ jobId: 'ticker-1', status: 'killed', killed: true, signal: 'SIGTERM' })
    expect(valueOf(await call('job_list', {}))[0].status).toBe('killed')
  })

  it('S10.6 job_read from nextOffset returns only new output; waitMs waits for it', async () => {
    const { call } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 2 }))
    let cursor = 0
    let seen = ''
    for (let i = 0; i < 50 && !seen.includes('tick 2'); i++) {
      const read = valueOf(await call('job_read', { jobId, sinceOffset: cursor, waitMs: 1000 }))
      expect(read.offset).toBe(cursor)
      seen += read.output
      cursor = read.nextOffset
    }
    expect(seen).toBe('tick 1\ntick 2\n')
    expect(cursor).toBe(14)
  })

  it('S10.6 job_read maxBytes pages through the output', async () => {
    const { call } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 2 }))
    await expect.poll(async () => valueOf(await call('job_read', { jobId })).totalBytes, { timeout: 30_000 }).toBe(14)
    const first = valueOf(await call('job_read', { jobId, maxBytes: 5 }))
    expect(first).toMatchObject({ output: 'tick ', nextOffset: 5, totalBytes: 14 })
    expect(text((await call('job_read', { jobId, maxBytes: 5 })).content)).toContain('read again with sinceOffset 5')
  })

  it('S10.5 job tools see only the calling agent\'s jobs: another agent gets "no job X"', async () => {
    const { call, state } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 1 }, 'alice'))
    expect(valueOf(await call('job_list', {}, 'bob'))).toEqual([])
    expect(valueOf(await call('job_list', {}, null))).toEqual([])
    const read = await call('job_read', { jobId }, 'bob')
    expect(read).toMatchObject({ isError: true, error: { kind: 'failed' } })
    expect(read.error?.message).toContain('no job "ticker-1"')
    const kill = await call('job_kill', { jobId }, 'bob')
    expect(kill.isError).toBe(true)
    expect(kill.error?.message).toContain('no job "ticker-1"')
    expect(state.killed).toBe(0)
    expect(valueOf(await call('job_read', { jobId }, 'alice')).status).toBe('running')
  })

  it('S10.3 cancelling the outer call after the id is published stops the waiting, not the job', async () => {
    const { call, state } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 0 }))
    const outer = new AbortController()
    const waiting = call('job_read', { jobId, waitMs: 20_000 }, 'alice', outer.signal)
    await tick(20)
    outer.abort()
    // Cancelled, not answered at the end of its 20 s wait.
    const result = await waiting
    expect(result.error?.kind).toBe('cancelled')
    expect(state.killed).toBe(0)
    expect(valueOf(await call('job_read', { jobId })).status).toBe('running')
  })

  it('S10.3 cancelling the call that started a job, right after the id is published, leaves the job running', async () => {
    const { call, state } = await setup()
    const outer = new AbortController()
    const result = await call('ticker', { lines: 1 }, 'alice', outer.signal)
    outer.abort()
    const { jobId } = valueOf(result)
    await tick(30)
    expect(state.killed).toBe(0)
    expect(valueOf(await call('job_read', { jobId })).status).toBe('running')
  })

  it('S10.2 a call whose signal is already aborted fails before the producer body: no job is published', async () => {
    const { call, root } = await setup()
    const outer = new AbortController()
    outer.abort()
    const result = await call('ticker', { lines: 1 }, 'alice', outer.signal)
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled' } })
    expect(root.jobs.list('alice')).toEqual([])
  })

  it('S10.5 job_kill kills; a second job_kill reports it had already ended', async () => {
    const { call, state } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 1 }))
    expect(valueOf(await call('job_kill', { jobId }))).toMatchObject({ killed: true, status: 'killed' })
    expect(state.killed).toBe(1)
    const again = await call('job_kill', { jobId })
    expect(valueOf(again)).toMatchObject({ killed: false, status: 'killed' })
    expect(text(again.content)).toContain('had already ended')
  })

  it('S2.2 job_list and job_read are concurrency-safe; job_kill is exclusive', async () => {
    const { root } = await setup()
    expect(root.tools.executionMode({ name: 'job_list', arguments: {} })).toEqual({ kind: 'parallel' })
    expect(root.tools.executionMode({ name: 'job_read', arguments: { jobId: 'x-1' } })).toEqual({ kind: 'parallel' })
    expect(root.tools.executionMode({ name: 'job_kill', arguments: { jobId: 'x-1' } })).toEqual({ kind: 'exclusive' })
  })

  it('S11.1 cards: pending generic cards; a finished read is a terminal card; malformed values fall back (S11.5)', async () => {
    const { call, root } = await setup()
    const { jobId } = valueOf(await call('ticker', { lines: 1 }))
    const read = root.tools.get('job_read')!
    expect(read.presentCall({ jobId })).toEqual({ card: 'generic', phase: 'pending', title: `Read job ${jobId}`, kind: 'jobs' })
    await call('job_read', { jobId, waitMs: 1000 })
    const running = await call('job_read', { jobId })
    expect(read.presentResult({ jobId }, running)).toMatchObject({ card: 'generic', title: `Job ${jobId} running: tick 1`, body: 'tick 1' })
    await call('job_kill', { jobId })
    const done = await call('job_read', { jobId })
    expect(read.presentResult({ jobId }, done)).toEqual({ card: 'terminal', phase: 'completed', command: 'tick 1', output: 'tick 1\n', exitCode: null, signal: 'SIGTERM', background: true })
    expect(read.presentResult({ jobId }, { ...done, value: { status: 42 } })).toBeUndefined()
    expect(read.presentResult({ nope: true }, done)).toBeUndefined()
    expect(root.tools.get('job_list')!.presentResult({}, { ...done, value: 'x' })).toBeUndefined()
    expect(root.tools.get('job_kill')!.presentResult({ jobId }, { ...done, isError: true })).toBeUndefined()
  })
})
