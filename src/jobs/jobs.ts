/**
 * `Jobs`, the `ctx.jobs` service (SPEC S10): publishes background jobs, buffers their output in a
 * bounded ring per job, and owns their lifecycle. A published job runs on its own AbortSignal
 * (S10.3) and ends only through `kill` (`job_kill`), its owner's dispose (`disposeOwner`, when a
 * session closes), the dispose of the plugin that started it, or the service's teardown (S10.5).
 */
import { type Context, Service } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import { raceAbort } from '../pipeline/race-abort.ts'
import { JobNotFoundError, JobStartError } from './job-errors.ts'
import type { JobHandle, JobInfo, JobOutcome, JobRead, JobStartOptions, JobStatus } from './job-types.ts'
import { DEFAULT_RING_BYTES, OutputRing } from './output-ring.ts'

declare module 'cordis' {
  interface Context {
    jobs: Jobs
  }
}

/** Configuration of the `Jobs` plugin. */
export interface JobsConfig {
  /** Output bytes kept per job (the newest); older bytes are counted and dropped. Default 1 MiB. */
  ringBytes?: number
  /** How long `kill` and teardown wait for a producer to settle after aborting it, in ms. Default 5000. */
  killWaitMs?: number
  /** Running jobs one owner may have at once; `start` refuses more. Default 32. */
  maxRunningPerOwner?: number
  /** Ended jobs kept readable (all owners together); the oldest ended ones are forgotten first. Default 256. */
  retainEnded?: number
}

interface JobRecord {
  readonly jobId: string
  readonly kind: string
  readonly label: string
  readonly owner: string | undefined
  readonly ring: OutputRing
  readonly controller: AbortController
  status: JobStatus
  exitCode: number | null
  signal: string | null
  error: string | undefined
  /** Resolves when the producer has settled (never rejects). */
  settled: Promise<void>
  /** Removes the job's effect from the fiber of the plugin that started it. */
  release: (() => unknown) | undefined
  /** Woken on every write and when the job ends (see `waitForOutput`). */
  readonly waiters: Set<() => void>
}

/** Mutable state lives in one object: service methods run with a cordis-provided `this`. */
interface JobsState {
  counter: number
  closing: boolean
  readonly jobs: Map<string, JobRecord>
}

const KIND = /^[a-z][a-z0-9_]{0,31}$/
const MAX_LABEL = 200

/**
 * The jobs service. Install with `ctx.plugin(Jobs, config)`; use as `ctx.jobs`. Calls made through
 * a plugin's `ctx.jobs` tie the jobs they start to that plugin's fiber.
 */
export class Jobs extends Service {
  readonly _config: Required<JobsConfig>
  readonly _state: JobsState = { counter: 0, closing: false, jobs: new Map() }

  constructor(ctx: Context, config: JobsConfig = {}) {
    super(ctx, 'jobs')
    this._config = {
      ringBytes: config.ringBytes ?? DEFAULT_RING_BYTES,
      killWaitMs: config.killWaitMs ?? 5000,
      maxRunningPerOwner: config.maxRunningPerOwner ?? 32,
      retainEnded: config.retainEnded ?? 256,
    }
    // Validate the ring size now, not at the first start.
    void new OutputRing(this._config.ringBytes)
    const state = this._state
    // S10.5 service teardown: every job dies with the service.
    ctx.effect(
      () => () => {
        state.closing = true
        const running = [...state.jobs.values()]
        state.jobs.clear()
        return Promise.all(running.map((job) => this._stop(job))).then(() => {})
      },
      'jobs teardown',
    )
  }

  /**
   * Publish a job and start its producer (S10.1). `run` gets the job's own signal (S10.3) and a
   * `write` into the job's ring. The job is also tied to the fiber of the calling plugin: disposing
   * that plugin kills it (S10.5).
   *
   * If `options.signal` (the starting call's signal) is given and already aborted, nothing is
   * published and nothing runs (S10.2); it is never linked to the job afterwards (S10.3).
   *
   * @returns `{jobId}`, e.g. `{jobId: 'bash-3'}`; ids are unique for the life of the service.
   * @throws JobStartError for an invalid `kind` or `run`, an aborted `signal`, a service that is
   *   shutting down or a caller fiber that is no longer active, or an owner at `maxRunningPerOwner`.
   */
  start(options: JobStartOptions & { signal?: AbortSignal }): JobHandle {
    const state = this._state
    const { kind, run, owner } = options
    if (typeof kind !== 'string' || !KIND.test(kind)) throw new JobStartError(`job kind ${JSON.stringify(kind)} is invalid: use [a-z][a-z0-9_]*, at most 32 characters`)
    if (typeof run !== 'function') throw new JobStartError('jobs.start needs run: (context) => Promise')
    if (owner !== undefined && typeof owner !== 'string') throw new JobStartError('a job owner is an agent id (string) or undefined')
    if (options.signal?.aborted) throw new JobStartError('the call was cancelled before the job started, so no job was published', { kind })
    if (state.closing) throw new JobStartError('the jobs service is shutting down; no new job can start', { kind })
    let running = 0
    for (const job of state.jobs.values()) if (job.owner === owner && job.status === 'running') running++
    if (running >= this._config.maxRunningPerOwner) {
      throw new JobStartError(`this session already has ${running} running jobs (the limit); kill one with job_kill first`, { kind, running })
    }

    const jobId = `${kind}-${++state.counter}`
    const label = String(options.label ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_LABEL)
    const job: JobRecord = {
      jobId,
      kind,
      label,
      owner,
      ring: new OutputRing(this._config.ringBytes),
      controller: new AbortController(),
      status: 'running',
      exitCode: null,
      signal: null,
      error: undefined,
      settled: Promise.resolve(),
      release: undefined,
      waiters: new Set(),
    }
    try {
      // S10.5: the job belongs to the fiber of the plugin that started it.
      job.release = this.ctx.effect(() => () => this._stop(job), `jobs.start(${jobId})`)
    } catch (error) {
      throw new JobStartError(`cannot start a job from a plugin that is not active: ${(error as Error).message}`, { kind })
    }
    state.jobs.set(jobId, job)

    const write = (chunk: string) => {
      if (job.status !== 'running' || typeof chunk !== 'string') return
      job.ring.write(chunk)
      wake(job)
    }
    let produced: Promise<JobOutcome | void>
    try {
      produced = Promise.resolve(run({ jobId, signal: job.controller.signal, write }))
    } catch (error) {
      produced = Promise.reject(error)
    }
    job.settled = produced.then(
      (outcome) => {
        if (outcome && typeof outcome === 'object') {
          if (typeof outcome.exitCode === 'number' || outcome.exitCode === null) job.exitCode = outcome.exitCode ?? null
          if (typeof outcome.signal === 'string' || outcome.signal === null) job.signal = outcome.signal ?? null
        }
        if (job.status === 'running') job.status = 'exited'
      },
      (error) => {
        if (job.status === 'running') {
          job.status = 'failed'
          job.error = describeThrown(error)
        }
      },
    ).finally(() => {
      wake(job)
      const release = job.release
      job.release = undefined
      // The fiber no longer needs to kill this job; the release runs `_stop`, a no-op by now.
      void Promise.resolve(release?.()).catch(() => {})
      this._forgetOldEnded()
    })
    return Object.freeze({ jobId })
  }

  /**
   * `owner`'s jobs, oldest first (S10.6 `job_list`). Jobs of other owners are never included.
   */
  list(owner: string | undefined): JobInfo[] {
    return [...this._state.jobs.values()].filter((job) => job.owner === owner).map(info)
  }

  /**
   * Output of `jobId` since `options.sinceOffset` (default 0) and its state (S10.6 `job_read`).
   * Offsets are total-bytes coordinates; pass back `nextOffset` to read only what is new.
   * `options.maxBytes` bounds the returned output (default: all that is kept, up to `ringBytes`).
   * @throws JobNotFoundError when there is no such job for `owner` (another owner's job included).
   */
  read(jobId: string, owner: string | undefined, options: { sinceOffset?: number; maxBytes?: number } = {}): JobRead {
    const { sinceOffset = 0, maxBytes = Infinity } = options
    const job = this._find(jobId, owner)
    const slice = job.ring.read(sinceOffset, maxBytes)
    return { ...info(job), output: slice.text, offset: slice.offset, nextOffset: slice.nextOffset, missedBytes: slice.missedBytes }
  }

  /**
   * Kill `jobId` (S10.5 `job_kill`): abort its signal and wait up to `killWaitMs` for the producer
   * to settle. Killing an ended job changes nothing. Resolves with the job's state afterwards and
   * whether this call was the one that stopped it.
   * @throws JobNotFoundError when there is no such job for `owner`.
   */
  async kill(jobId: string, owner: string | undefined): Promise<JobInfo & { killed: boolean }> {
    const job = this._find(jobId, owner)
    const killed = job.status === 'running'
    await this._stop(job)
    return { ...info(job), killed }
  }

  /**
   * The owner is gone (a session closed; S10.5 owner dispose): kill its running jobs and forget
   * all of its jobs. Resolves when their producers have settled (each bounded by `killWaitMs`).
   */
  async disposeOwner(owner: string | undefined): Promise<void> {
    const mine = [...this._state.jobs.values()].filter((job) => job.owner === owner)
    for (const job of mine) this._state.jobs.delete(job.jobId)
    await Promise.all(mine.map((job) => this._stop(job)))
  }

  /**
   * Wait until `jobId` has output past `options.sinceOffset` or is no longer running, at most
   * `options.waitMs` ms, or until `options.signal` aborts (the waiting is the caller's, S10.4; the
   * job is untouched, S10.3). Resolves (never rejects on timeout or abort) so the caller can read
   * what there is.
   * @throws JobNotFoundError when there is no such job for `owner`.
   */
  waitForOutput(jobId: string, owner: string | undefined, options: { sinceOffset: number; waitMs: number; signal?: AbortSignal }): Promise<void> {
    const { sinceOffset, waitMs, signal } = options
    const job = this._find(jobId, owner)
    const ready = () => job.status !== 'running' || job.ring.totalBytes > sinceOffset
    if (ready() || !(waitMs > 0) || signal?.aborted) return Promise.resolve()
    let timer: NodeJS.Timeout | undefined
    let check: (() => void) | undefined
    const output = new Promise<void>((resolve) => {
      check = () => {
        if (ready()) resolve()
      }
      timer = setTimeout(resolve, waitMs)
      job.waiters.add(check)
    })
    return raceAbort(output, signal, () => undefined).finally(() => {
      clearTimeout(timer)
      job.waiters.delete(check!)
    })
  }

  /** Abort a running job, mark it killed, and wait (bounded) for its producer. Never rejects. */
  _stop(job: JobRecord): Promise<void> {
    if (job.status !== 'running') return job.settled
    job.status = 'killed'
    job.controller.abort(new Error(`job ${job.jobId} was killed`))
    wake(job)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this._config.killWaitMs)
      timer.unref?.()
    })
    return Promise.race([job.settled, timeout]).finally(() => clearTimeout(timer))
  }

  _find(jobId: string, owner: string | undefined): JobRecord {
    const job = typeof jobId === 'string' ? this._state.jobs.get(jobId) : undefined
    // S10.5: another owner's job is reported exactly like a missing one.
    if (!job || job.owner !== owner) throw new JobNotFoundError(String(jobId))
    return job
  }

  _forgetOldEnded(): void {
    const ended = [...this._state.jobs.values()].filter((job) => job.status !== 'running')
    for (const job of ended.slice(0, Math.max(0, ended.length - this._config.retainEnded))) this._state.jobs.delete(job.jobId)
  }
}

function wake(job: JobRecord): void {
  for (const waiter of [...job.waiters]) waiter()
}

function info(job: JobRecord): JobInfo {
  return {
    jobId: job.jobId,
    kind: job.kind,
    label: job.label,
    status: job.status,
    exitCode: job.exitCode,
    signal: job.signal,
    ...(job.error !== undefined && { error: job.error }),
    totalBytes: job.ring.totalBytes,
    droppedBytes: job.ring.droppedBytes,
  }
}
