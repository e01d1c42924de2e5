/**
 * The host's side of type-checking and compiling `run_code` scripts (SPEC S9.1; issue 16: "the
 * host only routes"). Scripts are checked in checker workers (`checker-worker-entry.ts`: child
 * processes with `isolation: 'process'`, worker threads with `'inline'`), never on the host's
 * event loop, so a script whose types take seconds to check cannot stall other sessions. Each
 * check has a deadline enforced here by a timer: when it passes, the checker is killed (SIGKILL
 * or `terminate()`) and replaced; the host never waits for a synchronous step to return.
 *
 * Start-up is not charged to a script: a checker reports `ready` only after TypeScript is loaded
 * and its lib files parsed, and a script's deadline starts when a ready checker takes it.
 */
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { startWorker, type WorkerChannel, type WorkerKind } from '../worker-channel.ts'
import type { CheckerChildMessage, CheckerFailureMessage, CheckerParentMessage, CheckerPreparedMessage, PrepareOutcome, PrepareRequest, PrepareResult } from './checker-contract.ts'

export type { PrepareOutcome, PrepareResult } from './checker-contract.ts'

/** Options of a {@link CheckerPool}. */
export interface CheckerPoolOptions {
  /** Child processes (default) or worker threads of this process. */
  kind?: WorkerKind
  /** Most checkers at once, so most scripts checked at once (default 2). Started on demand. */
  size?: number
  /** Heap limit of one checker in MB (default 1024); past it the check ends `crashed`. */
  memoryMb?: number
  /** How long in ms a checker may take to become ready before it is killed (default 20 000). */
  startTimeoutMs?: number
  /** The checker's main module (default `checker-worker-entry.ts` next to this file). */
  entry?: string
  /**
   * The declarations most scripts are checked against (`Ptc.declarations()`). When given, a new
   * checker checks one small script against them before it counts as ready, so parsing them is
   * start-up work too, not the first script's.
   */
  warmup?: () => Promise<string>
}

/** Per-script options of {@link CheckerPool.prepare}. */
export interface PrepareOptions {
  /** The tool declarations the script is checked against (`Ptc.declarations()`). */
  declarations: string
  /** Deadline in ms, counted from when a ready checker takes the script. */
  timeoutMs: number
  /** Aborting it ends the check `cancelled` (the checker is killed) or stops the wait for one. */
  signal?: AbortSignal
}

const DEFAULT_ENTRY = fileURLToPath(new URL('./checker-worker-entry.ts', import.meta.url))
/** Must match `checker-worker-entry.ts`: both sides keep the same last 8 declaration hashes. */
const KEPT_DECLARATIONS = 8

interface Job {
  readonly id: number
  finish(outcome: PrepareOutcome, keepChecker: boolean): void
}

interface Checker {
  readonly channel: WorkerChannel<CheckerParentMessage>
  /** `starting` until ready and warmed up (see `CheckerPoolOptions.warmup`). */
  state: 'starting' | 'idle' | 'busy' | 'dead'
  readonly ready: Promise<void>
  /** Declaration hashes the checker holds, oldest first (mirrors its own eviction). */
  readonly held: Map<string, true>
  job: Job | undefined
}

interface Waiter {
  resolve(checker: Checker | undefined): void
  reject(error: Error): void
}

/**
 * A small set of checker workers shared by every run of one `Ptc` service. Use {@link prepare}
 * for every script; {@link prewarm} at server start. Idle checkers never keep the process alive.
 */
export class CheckerPool {
  readonly #options: Required<Omit<CheckerPoolOptions, 'warmup'>> & Pick<CheckerPoolOptions, 'warmup'>
  readonly #checkers = new Set<Checker>()
  readonly #waiters: Waiter[] = []
  #prewarmed = false
  #disposed = false
  #nextId = 0

  constructor(options: CheckerPoolOptions = {}) {
    this.#options = {
      kind: options.kind ?? 'process',
      size: Math.max(1, Math.floor(options.size ?? 2)),
      memoryMb: options.memoryMb ?? 1024,
      startTimeoutMs: options.startTimeoutMs ?? 20_000,
      entry: options.entry ?? DEFAULT_ENTRY,
      ...(options.warmup && { warmup: options.warmup }),
    }
  }

  /** Ids of the live checkers (pids or thread ids), for tests and diagnostics. */
  get checkerIds(): number[] {
    return [...this.#checkers].flatMap((checker) => (checker.channel.id === undefined ? [] : [checker.channel.id]))
  }

  /**
   * Starts every checker now and keeps them started after kills, so no run waits for a cold
   * checker (`ptc serve` calls it at start-up). Resolves when all are ready.
   * @throws Error when a checker cannot start, or the pool is disposed.
   */
  async prewarm(): Promise<void> {
    if (this.#disposed) throw new Error('CheckerPool is disposed')
    this.#prewarmed = true
    while (this.#checkers.size < this.#options.size) this.#spawn()
    await Promise.all([...this.#checkers].map((checker) => checker.ready))
  }

  /**
   * Checks and/or compiles one script in a checker. Waits for a free ready checker first
   * (starting one when fewer than `size` run); that wait is not part of `timeoutMs`.
   * Never rejects for anything the script does (see {@link PrepareOutcome}).
   * @throws Error when no checker can start (infrastructure), or the pool is disposed.
   */
  async prepare(request: PrepareRequest, options: PrepareOptions): Promise<PrepareResult> {
    if (this.#disposed) throw new Error('CheckerPool is disposed')
    const checker = await this.#take(options.signal)
    const startedAt = performance.now()
    const outcome: PrepareOutcome = checker === undefined ? { kind: 'cancelled' } : await this.#run(checker, request, options)
    return { outcome, startedAt, checkMs: performance.now() - startedAt }
  }

  /** Kills every checker; pending scripts end `crashed`, waiting ones reject. Idempotent. */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error('CheckerPool is disposed'))
    for (const checker of this.#checkers) {
      checker.job?.finish({ kind: 'crashed', message: 'the checker pool was disposed' }, false)
      checker.channel.kill()
    }
  }

  /** A free ready checker, marked busy; `undefined` when `signal` aborts first. */
  #take(signal: AbortSignal | undefined): Promise<Checker | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined)
    for (const checker of this.#checkers) {
      if (checker.state === 'idle') {
        checker.state = 'busy'
        checker.channel.setRef(true)
        return Promise.resolve(checker)
      }
    }
    if (this.#checkers.size < this.#options.size) this.#spawn()
    return new Promise<Checker | undefined>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1) // Still queued: a served waiter has no listener.
        this.#updateRefs()
        resolve(undefined)
      }
      const settled = <T>(settle: (value: T) => void) => (value: T): void => {
        signal?.removeEventListener('abort', onAbort)
        settle(value)
      }
      const waiter: Waiter = { resolve: settled(resolve), reject: settled(reject) }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiters.push(waiter)
      this.#updateRefs()
    })
  }

  #run(checker: Checker, request: PrepareRequest, options: PrepareOptions): Promise<PrepareOutcome> {
    return new Promise<PrepareOutcome>((resolve) => {
      const id = ++this.#nextId
      const onAbort = (): void => job.finish({ kind: 'cancelled' }, false)
      const job: Job = {
        id,
        finish: (outcome, keepChecker) => {
          if (checker.job !== job) return
          checker.job = undefined
          clearTimeout(timer)
          options.signal?.removeEventListener('abort', onAbort)
          // A warm-up (still `starting`) is released by #warmUp itself.
          if (!keepChecker) checker.channel.kill()
          else if (checker.state === 'busy') this.#release(checker)
          resolve(outcome)
        },
      }
      checker.job = job
      // The watchdog: whatever the checker is doing, it is killed at the deadline.
      const timer = setTimeout(() => job.finish({ kind: 'timeout' }, false), options.timeoutMs)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      const hash = createHash('sha256').update(options.declarations).digest('base64')
      const held = checker.held.delete(hash)
      checker.held.set(hash, true)
      if (checker.held.size > KEPT_DECLARATIONS) checker.held.delete(checker.held.keys().next().value!)
      const message: CheckerParentMessage = { type: 'prepare', id, request, declarationsHash: hash, ...(!held && { declarations: options.declarations }) }
      if (!checker.channel.send(message)) job.finish({ kind: 'crashed', message: 'the checker could not be reached' }, false)
    })
  }

  #spawn(): void {
    let markReady!: () => void
    let failReady!: (error: Error) => void
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve
      failReady = reject
    })
    ready.catch(() => {}) // Observed by prewarm() when it awaits; never an unhandled rejection.
    let checker!: Checker
    const channel = startWorker<CheckerParentMessage, CheckerChildMessage>({
      kind: this.#options.kind,
      entry: this.#options.entry,
      memoryMb: this.#options.memoryMb,
      onMessage: (message) => {
        if (message.type === 'ready') this.#warmUp(checker).then(() => {
          clearTimeout(startTimer)
          markReady()
        }, () => channel.kill())
        else this.#onMessage(checker, message)
      },
      onExit: (description) => {
        clearTimeout(startTimer)
        this.#onExit(checker, description, failReady)
      },
    })
    checker = { channel, state: 'starting', ready, held: new Map(), job: undefined }
    this.#checkers.add(checker)
    const startTimer = setTimeout(() => channel.kill(), this.#options.startTimeoutMs)
    startTimer.unref()
    this.#updateRefs()
  }

  /**
   * A started checker checks one script against the `warmup` declarations (still `starting`, so
   * nobody else gets it), then is released. Rejects when the warm-up did not come out clean.
   */
  async #warmUp(checker: Checker): Promise<void> {
    if (checker.state !== 'starting') throw new Error('the checker is gone')
    if (this.#options.warmup !== undefined) {
      const declarations = await this.#options.warmup()
      const outcome = await this.#run(checker, { code: 'return 1', typecheck: true, compile: true }, { declarations, timeoutMs: this.#options.startTimeoutMs })
      if (outcome.kind !== 'prepared') throw new Error(`the checker's warm-up ended ${outcome.kind}`)
    }
    if (checker.state !== 'starting') throw new Error('the checker is gone')
    this.#release(checker)
  }

  #onMessage(checker: Checker, message: CheckerPreparedMessage | CheckerFailureMessage): void {
    if (checker.job?.id !== message.id) return
    if (message.type === 'prepared') {
      checker.job.finish({ kind: 'prepared', prepared: message.prepared }, true)
    } else {
      checker.held.clear() // Resend declarations next time, in case that was the problem.
      checker.job.finish({ kind: 'crashed', message: `${message.error.name}: ${message.error.message}` }, true)
    }
  }

  #onExit(checker: Checker, description: string, failReady: (error: Error) => void): void {
    const wasStarting = checker.state === 'starting'
    checker.state = 'dead'
    this.#checkers.delete(checker)
    checker.job?.finish({ kind: 'crashed', message: `the checker stopped (${description})` }, false)
    if (this.#disposed) return
    if (wasStarting) {
      const error = new Error(`the type checker could not start (${description}); see its stderr`)
      failReady(error)
      // No respawn loop after a failed start: fail the waiters no remaining checker will serve.
      if (this.#checkers.size === 0) for (const waiter of this.#waiters.splice(0)) waiter.reject(error)
      return
    }
    if (this.#prewarmed || this.#waiters.length > 0) this.#spawn()
    this.#updateRefs()
  }

  /** `checker` is free: the longest-waiting script gets it, else it idles. */
  #release(checker: Checker): void {
    const waiter = this.#waiters.shift()
    checker.state = waiter === undefined ? 'idle' : 'busy'
    waiter?.resolve(checker)
    this.#updateRefs()
  }

  /** A checker keeps the process alive while busy, or while starting for someone waiting. */
  #updateRefs(): void {
    for (const checker of this.#checkers) {
      checker.channel.setRef(checker.state === 'busy' || (checker.state === 'starting' && this.#waiters.length > 0))
    }
  }
}
