/**
 * The host's side of type-checking and compiling `run_code` scripts (SPEC S9.1; issue 16: "the
 * host only routes"). Scripts are checked in checker workers (`checker-worker-entry.ts`: child
 * processes with `isolation: 'process'`, worker threads with `'inline'`), never on the host's
 * event loop, so a script whose types take seconds to check cannot stall other sessions. Each
 * check has a deadline enforced here by a timer: when it passes, the checker is killed (SIGKILL
 * or `terminate()`) and replaced; the host never waits for a synchronous step to return.
 *
 * A script's deadline counts from its call, waiting for a busy checker included, so it is a hard
 * deadline; only the pool's first start (a cold `ptc run`: TypeScript loaded, lib files parsed,
 * the declarations checked once) is not charged.
 *
 * A checker's start is bounded only by a safety limit (`startTimeoutMs`, default 60 s, issue 14):
 * on a loaded machine it takes as long as the CPU it gets, and no run's deadline may turn that
 * into a failed run, but a start that truly hangs must not wait forever. It ends when the checker
 * is ready, exits, or reaches that limit ("could not start", with how it ended or why its warm-up
 * failed, and its stderr's tail); a caller stops waiting with its signal.
 */
import { fileURLToPath } from 'node:url'
import { DEFAULT_START_TIMEOUT_MS, startLimitFailure, startWorker, stderrNote, WORKER_NICENESS } from '../worker-channel.ts'
import type { CheckerChildMessage, CheckerParentMessage, CheckerPoolOptions, PrepareOptions, PrepareOutcome, PrepareRequest, PrepareResult } from './checker-contract.ts'
import { answerJob, MAX_CHECKER_MESSAGE_BYTES, sendPrepare } from './checker-job.ts'
import { type Checker, type Clock, type Job, liveCheckers, type Waiter } from './checker-pool-state.ts'
import { waitForChecker } from './checker-waiter.ts'
import { answerTransform } from './host-transform.ts' // A checker thread's esbuild runs in the host.

export type { CheckerPoolOptions, PrepareOptions, PrepareOutcome, PrepareResult } from './checker-contract.ts'

const DEFAULT_ENTRY = fileURLToPath(new URL('./checker-worker-entry.ts', import.meta.url))

/**
 * A small set of checker workers shared by every run of one `Ptc` service. Use {@link prepare}
 * for every script; {@link prewarm} at server start. Idle checkers never keep the process alive.
 */
export class CheckerPool {
  readonly #options: Required<Omit<CheckerPoolOptions, 'warmup' | 'snapshot' | 'snapshotFailed'>> & Pick<CheckerPoolOptions, 'warmup' | 'snapshot' | 'snapshotFailed'>
  readonly #checkers = new Set<Checker>()
  readonly #waiters: Waiter[] = []
  #prewarmed = false
  #prewarming = 0
  /** When the first checker became ready; before it, waiting is not charged (a cold start). */
  #firstReadyAt: number | undefined
  #disposed = false
  #nextId = 0

  constructor(options: CheckerPoolOptions = {}) {
    this.#options = {
      kind: options.kind ?? 'process',
      size: Math.max(1, Math.floor(options.size ?? 2)),
      memoryMb: options.memoryMb ?? 1024,
      entry: options.entry ?? DEFAULT_ENTRY,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      ...(options.warmup && { warmup: options.warmup }),
      ...(options.kind !== 'thread' && options.snapshot && { snapshot: options.snapshot }),
      ...(options.snapshotFailed && { snapshotFailed: options.snapshotFailed }),
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
    while (liveCheckers(this.#checkers).length < this.#options.size) this.#spawn() // a checker the pool stopped is on its way out
    // Someone waits for them now: starting checkers keep the process alive until ready.
    this.#prewarming++
    this.#updateRefs()
    try {
      await Promise.all(liveCheckers(this.#checkers).map((checker) => checker.ready))
    } finally {
      this.#prewarming--
      this.#updateRefs()
    }
  }

  /**
   * Checks and/or compiles one script in a checker, waiting for a free one first (starting one
   * when fewer than `size` run). `timeoutMs` counts from the call, the wait included, except a
   * wait for the pool's very first checker to start (a cold `ptc run`): that start is not charged.
   * Never rejects for anything the script does (see {@link PrepareOutcome}).
   * @throws Error when no checker can start (infrastructure), or the pool is disposed.
   */
  async prepare(request: PrepareRequest, options: PrepareOptions): Promise<PrepareResult> {
    if (this.#disposed) throw new Error('CheckerPool is disposed')
    const clock: Clock = { startedAt: this.#firstReadyAt === undefined ? undefined : performance.now() }
    const taken = await this.#take(options, clock)
    const startedAt = (clock.startedAt ??= performance.now())
    const leftMs = options.timeoutMs - (performance.now() - startedAt)
    let outcome: PrepareOutcome
    if (taken === 'cancelled') outcome = { kind: taken }
    else if (taken === 'timeout') outcome = { kind: taken, waiting: true }
    else if (leftMs <= 0) {
      this.#release(taken)
      outcome = { kind: 'timeout', waiting: true }
    } else outcome = await this.#run(taken, request, { ...options, timeoutMs: leftMs })
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

  /**
   * A free ready checker, marked busy; `cancelled` when `signal` aborts first, `timeout` when the
   * deadline passes while waiting (its clock runs from `clock.startedAt`, once set).
   */
  #take(options: PrepareOptions, clock: Clock): Promise<Checker | 'cancelled' | 'timeout'> {
    const { signal, group } = options
    if (signal?.aborted) return Promise.resolve('cancelled')
    const allowed = this.#mayTake(group)
    for (const checker of this.#checkers) {
      if (checker.state === 'idle' && allowed) {
        checker.state = 'busy'
        checker.group = group
        checker.channel.setRef(true)
        return Promise.resolve(checker)
      }
    }
    if (this.#checkers.size < this.#options.size && allowed) this.#spawn()
    return waitForChecker(this.#waiters, options, clock, () => this.#updateRefs())
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
          if (!keepChecker) {
            // Killed: it no longer works for the script's group (its exit follows).
            checker.stopping = true
            checker.group = undefined
            checker.channel.kill()
          } else if (checker.state === 'busy') this.#release(checker)
          resolve(outcome)
        },
      }
      checker.job = job
      // The watchdog: whatever the checker is doing, it is killed at the deadline (none for a warm-up).
      const timer = Number.isFinite(options.timeoutMs) ? setTimeout(() => job.finish({ kind: 'timeout' }, false), options.timeoutMs) : undefined
      options.signal?.addEventListener('abort', onAbort, { once: true })
      if (!sendPrepare(checker, id, request, options.declarations)) job.finish({ kind: 'crashed', message: 'it could not be reached' }, false)
    })
  }

  #spawn(): Checker {
    const { promise: ready, resolve: markReady, reject: failReady } = Promise.withResolvers<void>()
    ready.catch(() => {}) // Observed by prewarm() when it awaits; never an unhandled rejection.
    let checker!: Checker
    const blob = this.#options.snapshot?.()
    const channel = startWorker<CheckerParentMessage, CheckerChildMessage>({
      kind: this.#options.kind,
      entry: this.#options.entry,
      ...(blob !== undefined && { execArgv: ['--snapshot-blob', blob] }),
      memoryMb: this.#options.memoryMb,
      niceness: WORKER_NICENESS,
      niceFrom: 'first-message',
      maxMessageBytes: MAX_CHECKER_MESSAGE_BYTES,
      onMessage: (message) => {
        if (message.type === 'ready' && checker.state === 'starting' && !checker.announced) {
          checker.announced = true
          this.#warmUp(checker).then(markReady, (error: Error) => {
            // Reported as how the start ended, not as the kill that follows.
            checker.startFailure ??= error.message
            channel.kill()
          })
        } else if (message.type === 'transform' && this.#options.kind === 'thread') answerTransform(message, (answer) => channel.send(answer))
        else if (message.type === 'prepared' || message.type === 'failure') answerJob(checker, message)
        // Thrown into the channel, which stops the checker and says why (a second `ready`, a process's `transform`).
        else throw new Error(`a checker may not send ${JSON.stringify((message as { type?: unknown } | null)?.type)} now`)
      },
      onExit: (description, stderrTail) => {
        clearTimeout(startLimit)
        if (blob !== undefined && blamesSnapshot(checker, description) && !this.#disposed) {
          // The snapshot does not start (corrupt, or built for another Node): the module entry does.
          this.#options.snapshot = undefined
          this.#options.snapshotFailed?.(blob)
          this.#checkers.delete(checker)
          this.#spawn().ready.then(markReady, failReady)
          return
        }
        this.#onExit(checker, description, stderrTail, failReady)
      },
    })
    checker = { channel, state: 'starting', ready, held: new Map(), job: undefined }
    // The safety limit of a start (warm-up included): past it the start fails as "could not start".
    const startLimit = setTimeout(() => {
      if (checker.state !== 'starting') return
      checker.startFailure ??= startLimitFailure(this.#options.startTimeoutMs)
      channel.kill()
    }, this.#options.startTimeoutMs).unref()
    this.#checkers.add(checker)
    this.#updateRefs()
    return checker
  }

  /**
   * A started checker checks one script against the `warmup` declarations (still `starting`, so
   * nobody else gets it), then is released. Rejects when the warm-up did not come out clean.
   */
  async #warmUp(checker: Checker): Promise<void> {
    if (checker.state !== 'starting') throw new Error('the checker is gone')
    const declarations = await this.#options.warmup?.()
    if (declarations !== undefined) {
      // No watchdog of its own: the warm-up is start-up work (it parses the lib files when there
      // is no snapshot), bounded by the start's safety limit.
      const outcome = await this.#run(checker, { code: 'return 1', typecheck: true, compile: true }, { declarations, timeoutMs: Infinity })
      if (outcome.kind !== 'prepared') throw new Error(`its warm-up check ended ${outcome.kind}${outcome.kind === 'crashed' ? `: ${outcome.message}` : ''}`)
    }
    if (checker.state !== 'starting') throw new Error('the checker is gone')
    if (this.#firstReadyAt === undefined) {
      // The cold start is over: from now on the waiting scripts' deadlines run.
      this.#firstReadyAt = performance.now()
      for (const waiter of this.#waiters) waiter.startClock(this.#firstReadyAt)
    }
    this.#release(checker)
  }

  #onExit(checker: Checker, description: string, stderrTail: string, failReady: (error: Error) => void): void {
    const wasStarting = checker.state === 'starting'
    checker.state = 'dead'
    this.#checkers.delete(checker)
    checker.job?.finish({ kind: 'crashed', message: description }, false)
    if (this.#disposed) return
    if (wasStarting) {
      const error = new Error(`the type checker could not start (${checker.startFailure ?? description}).${stderrNote(stderrTail)}`)
      failReady(error)
      // No respawn loop after a failed start: fail the waiters no remaining checker will serve.
      if (this.#checkers.size === 0) for (const waiter of this.#waiters.splice(0)) waiter.reject(error)
      return
    }
    if ((this.#prewarmed || this.#waiters.length > 0) && liveCheckers(this.#checkers).length < this.#options.size) this.#spawn()
    this.#updateRefs()
  }

  /**
   * `checker` is free: the longest-waiting script that may take it gets it, else it idles. A group
   * (an MCP session) never holds all the checkers of a pool of two or more, so another's script
   * always finds one (a review: one session's two heavy scripts held both, and another session's
   * `return 1` timed out waiting); a group's own scripts may then be checked fewer at a time.
   */
  #release(checker: Checker): void {
    checker.group = undefined
    const index = this.#waiters.findIndex((waiter) => this.#mayTake(waiter.group))
    const waiter = index === -1 ? undefined : this.#waiters.splice(index, 1)[0]
    checker.state = waiter === undefined ? 'idle' : 'busy'
    checker.group = waiter?.group
    waiter?.resolve(checker)
    this.#updateRefs()
  }

  /** Whether a script of `group` may take a checker now: unless the group would then hold them all. */
  #mayTake(group: string | undefined): boolean {
    if (group === undefined || this.#options.size < 2) return true
    let held = 0
    for (const checker of this.#checkers) if (checker.state === 'busy' && checker.group === group) held++
    return held < this.#options.size - 1
  }

  /** A checker keeps the process alive while busy, or while starting for someone waiting. */
  #updateRefs(): void {
    const awaited = this.#waiters.length > 0 || this.#prewarming > 0
    for (const checker of this.#checkers) checker.channel.setRef(checker.state === 'busy' || (checker.state === 'starting' && awaited))
  }
}

/**
 * Whether a checker started from a snapshot blob that ended with `description` shows the blob
 * cannot start one: it ended on its own before saying it was ready (a corrupt blob or one for
 * another Node aborts at once). Not when the pool stopped it (its start limit, a failed warm-up:
 * `startFailure` says why) or a signal from outside killed it (SIGKILL, SIGTERM, SIGINT), which
 * say nothing of the blob: on a loaded machine a start past its limit had discarded the user's
 * snapshot, and every checker after it started cold until another was built.
 */
function blamesSnapshot(checker: Checker, description: string): boolean {
  return checker.state === 'starting' && checker.announced !== true && checker.startFailure === undefined && !/^signal SIG(KILL|TERM|INT)$/.test(description)
}
