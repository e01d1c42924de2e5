import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { JobNotFoundError, JobStartError } from '../../../src/jobs/job-errors.ts'
import type { JobRunContext } from '../../../src/jobs/job-types.ts'
import { Jobs, type JobsConfig } from '../../../src/jobs/jobs.ts'
import { tick } from '../../helpers/registry.ts'

async function setup(config: JobsConfig = {}) {
  const root = new Context()
  const service = root.plugin(Jobs, config)
  await service
  return { root, service }
}

/** A producer that writes on demand and runs until its signal aborts. */
function controllable() {
  let context!: JobRunContext
  let aborted = false
  const run = (job: JobRunContext) =>
    new Promise<{ exitCode: null; signal: string }>((resolve) => {
      context = job
      job.signal.addEventListener('abort', () => {
        aborted = true
        resolve({ exitCode: null, signal: 'SIGTERM' })
      })
    })
  return { run, write: (text: string) => context.write(text), aborted: () => aborted, signal: () => context.signal }
}

describe('ctx.jobs service (S10)', () => {
  it('S10.1 start publishes a kind-numbered id and runs the producer on the jobs service', async () => {
    const { root } = await setup()
    const producer = controllable()
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'sleep 30', owner: 'a', run: producer.run })
    expect(jobId).toBe('bash-1')
    expect(root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: async () => {} }).jobId).toBe('bash-2')
    producer.write('hello\n')
    expect(root.jobs.read(jobId, 'a')).toMatchObject({ jobId, kind: 'bash', label: 'sleep 30', status: 'running', output: 'hello\n', nextOffset: 6, exitCode: null })
  })

  it('S10.1 a job that returns is exited with its exit code; one that throws is failed with the message', async () => {
    const { root } = await setup()
    const ok = root.jobs.start({ kind: 'task', label: 'ok', owner: 'a', run: ({ write }) => (write('done'), { exitCode: 3, signal: null }) })
    const bad = root.jobs.start({ kind: 'task', label: 'bad', owner: 'a', run: async () => { throw new Error('boom') } })
    await tick()
    expect(root.jobs.read(ok.jobId, 'a')).toMatchObject({ status: 'exited', exitCode: 3, signal: null, output: 'done' })
    expect(root.jobs.read(bad.jobId, 'a')).toMatchObject({ status: 'failed', error: 'boom' })
  })

  it('S10.2 a start whose call signal is already aborted publishes nothing and never runs the producer', async () => {
    const { root } = await setup()
    let ran = false
    const controller = new AbortController()
    controller.abort()
    expect(() => root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', signal: controller.signal, run: () => { ran = true } })).toThrow(JobStartError)
    expect(ran).toBe(false)
    expect(root.jobs.list('a')).toEqual([])
  })

  it('S10.3 after the id is published the producer uses the job signal: aborting the call signal does not stop it', async () => {
    const { root } = await setup()
    const call = new AbortController()
    const producer = controllable()
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', signal: call.signal, run: producer.run })
    call.abort()
    await tick(10)
    expect(producer.signal()).not.toBe(call.signal)
    expect(producer.aborted()).toBe(false)
    expect(root.jobs.read(jobId, 'a').status).toBe('running')
  })

  it('S10.5 kill aborts the job signal, waits for the producer and reports killed; killing again changes nothing', async () => {
    const { root } = await setup()
    const producer = controllable()
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: producer.run })
    const killed = await root.jobs.kill(jobId, 'a')
    expect(producer.aborted()).toBe(true)
    expect(killed).toMatchObject({ jobId, status: 'killed', killed: true, exitCode: null, signal: 'SIGTERM' })
    expect(await root.jobs.kill(jobId, 'a')).toMatchObject({ status: 'killed', killed: false })
    const done = root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: () => ({ exitCode: 0 }) })
    await tick()
    expect(await root.jobs.kill(done.jobId, 'a')).toMatchObject({ status: 'exited', exitCode: 0, killed: false })
  })

  it('S10.5 kill of a producer that ignores its signal resolves after killWaitMs with status killed', async () => {
    const { root } = await setup({ killWaitMs: 30 })
    const { jobId } = root.jobs.start({ kind: 'stuck', label: 'x', owner: 'a', run: () => new Promise(() => {}) })
    // The producer never settles: resolving at all means kill stopped waiting after killWaitMs.
    expect(await root.jobs.kill(jobId, 'a')).toMatchObject({ status: 'killed', killed: true })
  })

  it('S10.5 output written after a kill is ignored', async () => {
    const { root } = await setup()
    let write!: (text: string) => void
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: (job) => { write = job.write; return new Promise((resolve) => job.signal.addEventListener('abort', () => resolve())) } })
    write('before')
    await root.jobs.kill(jobId, 'a')
    write('after')
    expect(root.jobs.read(jobId, 'a').output).toBe('before')
  })

  it('S10.5 owner isolation: another owner cannot list, read or kill a job, and learns nothing about it', async () => {
    const { root } = await setup()
    const producer = controllable()
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'secret', owner: 'alice', run: producer.run })
    expect(root.jobs.list('bob')).toEqual([])
    expect(root.jobs.list(undefined)).toEqual([])
    let readError: unknown
    try {
      root.jobs.read(jobId, 'bob')
    } catch (error) {
      readError = error
    }
    expect(JobNotFoundError.isInstance(readError)).toBe(true)
    let missingError: unknown
    try {
      root.jobs.read('bash-99', 'bob')
    } catch (error) {
      missingError = error
    }
    // The same words for "someone else's" and "does not exist", apart from the id itself.
    expect((readError as Error).message.replace(jobId, 'ID')).toBe((missingError as Error).message.replace('bash-99', 'ID'))
    await expect(root.jobs.kill(jobId, 'bob')).rejects.toThrow(/no job "bash-1"/)
    expect(producer.aborted()).toBe(false)
    expect(root.jobs.list('alice').map((job) => job.jobId)).toEqual([jobId])
  })

  it('S10.5 owner dispose kills that owner\'s running jobs and forgets its jobs; other owners keep theirs', async () => {
    const { root } = await setup()
    const mine = controllable()
    const theirs = controllable()
    root.jobs.start({ kind: 'bash', label: 'a', owner: 'alice', run: mine.run })
    root.jobs.start({ kind: 'task', label: 'done', owner: 'alice', run: () => {} })
    const other = root.jobs.start({ kind: 'bash', label: 'b', owner: 'bob', run: theirs.run })
    await root.jobs.disposeOwner('alice')
    expect(mine.aborted()).toBe(true)
    expect(theirs.aborted()).toBe(false)
    expect(root.jobs.list('alice')).toEqual([])
    expect(root.jobs.read(other.jobId, 'bob').status).toBe('running')
  })

  it('S10.5 jobs started through a plugin die with that plugin (fiber effect)', async () => {
    const { root } = await setup()
    const producer = controllable()
    let jobId = ''
    const fiber = root.plugin({ name: 'starter', inject: ['jobs'], apply: (ctx: Context) => { jobId = ctx.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: producer.run }).jobId } })
    await fiber
    expect(root.jobs.read(jobId, 'a').status).toBe('running')
    await fiber.dispose()
    expect(producer.aborted()).toBe(true)
    expect(root.jobs.read(jobId, 'a').status).toBe('killed')
  })

  it('S10.5 service teardown kills every job and refuses new ones', async () => {
    const { root, service } = await setup()
    const first = controllable()
    const second = controllable()
    const jobs = root.jobs
    jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: first.run })
    jobs.start({ kind: 'bash', label: 'y', owner: 'b', run: second.run })
    await service.dispose()
    expect(first.aborted()).toBe(true)
    expect(second.aborted()).toBe(true)
    expect(() => jobs.start({ kind: 'bash', label: 'z', owner: 'a', run: () => {} })).toThrow(/shutting down/)
  })

  it('a chatty job stays within the ring; totals and dropped bytes tell the reader what it missed', async () => {
    const { root } = await setup({ ringBytes: 1024 })
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'yes', owner: 'a', run: ({ write }) => { for (let i = 0; i < 1000; i++) write('0123456789') } })
    await tick()
    const read = root.jobs.read(jobId, 'a')
    expect(read.output.length).toBe(1024)
    expect(read).toMatchObject({ totalBytes: 10_000, droppedBytes: 10_000 - 1024, offset: 10_000 - 1024, nextOffset: 10_000, missedBytes: 10_000 - 1024 })
    expect(root.jobs.list('a')[0]).toMatchObject({ totalBytes: 10_000, droppedBytes: 8976 })
  })

  it('cursors: reading from nextOffset returns only what is new', async () => {
    const { root } = await setup()
    const producer = controllable()
    const { jobId } = root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: producer.run })
    producer.write('one\n')
    const first = root.jobs.read(jobId, 'a')
    producer.write('two\n')
    const second = root.jobs.read(jobId, 'a', { sinceOffset: first.nextOffset })
    expect([first.output, second.output, second.offset, second.nextOffset]).toEqual(['one\n', 'two\n', 4, 8])
    expect(root.jobs.read(jobId, 'a', { sinceOffset: second.nextOffset }).output).toBe('')
    expect(root.jobs.read(jobId, 'a', { sinceOffset: 0, maxBytes: 3 })).toMatchObject({ output: 'one', nextOffset: 3 })
  })

  it('start validates its input and the per-owner running limit', async () => {
    const { root } = await setup({ maxRunningPerOwner: 1 })
    expect(() => root.jobs.start({ kind: 'Bad Kind', label: 'x', owner: 'a', run: () => {} })).toThrow(JobStartError)
    expect(() => root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: 'nope' as never })).toThrow(JobStartError)
    root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: () => new Promise(() => {}) })
    expect(() => root.jobs.start({ kind: 'bash', label: 'x', owner: 'a', run: () => {} })).toThrow(/limit/)
    expect(root.jobs.start({ kind: 'bash', label: 'x', owner: 'b', run: () => {} }).jobId).toBe('bash-2')
  })

  it('ended jobs beyond retainEnded are forgotten, oldest first', async () => {
    const { root } = await setup({ retainEnded: 2 })
    for (let i = 0; i < 4; i++) root.jobs.start({ kind: 'task', label: String(i), owner: 'a', run: () => {} })
    await tick()
    expect(root.jobs.list('a').map((job) => job.jobId)).toEqual(['task-3', 'task-4'])
  })
})
