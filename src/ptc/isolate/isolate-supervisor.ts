/**
 * The isolate worker processes' lifecycle (SPEC S9.1–S9.3, S9.7; issue 3: "the host survives what
 * a script does"). isolated-vm can fail catastrophically: an array operation V8 must size past its
 * limits drives it into an out-of-memory it cannot contain (isolate-catastrophe.ts), the isolate's
 * thread never ends and the process can no longer exit. So isolates live in a child process (`isolate-worker-entry.ts`) that the
 * supervisor can always SIGKILL and replace, while tool calls run here, in the host, through the
 * caller's `dispatch` ({@link SupervisedRun}, one per run).
 */
import { raceAbort } from '../../pipeline/race-abort.ts'
import { DEFAULT_START_TIMEOUT_MS, startLimitFailure, stderrNote } from '../worker-channel.ts'
import { DEFAULT_RECYCLE_AFTER_RUNS, type IsolateRunRequest, type IsolateRunResult, type IsolateSupervisorOptions } from './isolate-contract.ts'
import type { IsolateWorkerOptions } from './worker-messages.ts'
import { cancelledError, disposedEnding } from './run-endings.ts'
import { resolveRunLimits } from './run-limits.ts'
import { SupervisedRun } from './supervised-run.ts'
import { cancelWhileHeld, exitEnding, refWorker, routeWorkerMessage, sendAnswerTurn, sendStepStart, sendToWorker, SUSPECT_MS, type SupervisedWorker } from './supervised-worker.ts'
import { TurnBatcher } from './turn-batcher.ts'
import { DEFAULT_WORKER_ENTRY, startIsolateWorker, takePrestartedWorker, type WorkerHandlers } from './worker-start.ts'

/**
 * Runs scripts like `runInIsolate` (same request, same result, same guarantees), but in a
 * supervised child process. One per worker process (`IsolateSupervisorGroup` holds those of a
 * host); many concurrent runs share its worker. Whatever the worker does, every run resolves
 * within its wall-clock limit plus `graceMs`, and an idle supervisor never keeps the Node process
 * alive.
 *
 * Restart semantics: a worker that reports an isolated-vm catastrophe, returns a `memory` run (a
 * memory kill can also leave an isolate thread spinning), or misses a deadline or cancel is
 * retired: new runs go to a fresh worker, its remaining runs may finish, and it is SIGKILLed once
 * they are done (or after `drainGraceMs`). A worker that exits unexpectedly resolves each of its
 * runs with status `error` (`memory` after a catastrophe) and aborts their tool calls' signals.
 * A worker that has served `recycleAfterRuns` runs is replaced the same way, except that its
 * replacement is started first and takes over only once ready, so no run waits for it.
 */
export class IsolateSupervisor {
  private readonly options: Required<IsolateSupervisorOptions>
  private current: SupervisedWorker | undefined
  /** The replacement being started for `current` once it served `recycleAfterRuns` runs. */
  private successor: SupervisedWorker | undefined
  private readonly workers = new Set<SupervisedWorker>()
  private nextRunId = 0
  private prewarmed = false
  private spawned = 0
  /** The worker {@link start} began, until a run claims it. */
  private early: SupervisedWorker | undefined
  private disposed = false

  constructor(options: IsolateSupervisorOptions = {}) {
    this.options = {
      poolSize: options.poolSize ?? 2,
      memoryMb: options.memoryMb ?? 128,
      graceMs: options.graceMs ?? 1_000,
      drainGraceMs: options.drainGraceMs ?? 30_000,
      entry: options.entry ?? DEFAULT_WORKER_ENTRY,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      recycleAfterRuns: options.recycleAfterRuns ?? DEFAULT_RECYCLE_AFTER_RUNS,
      firstRecycleAfterRuns: options.firstRecycleAfterRuns ?? options.recycleAfterRuns ?? DEFAULT_RECYCLE_AFTER_RUNS,
      mayBlock: options.mayBlock ?? (() => false),
    }
  }

  /** Pid of the worker new runs go to, if one is running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.current?.channel.id
  }

  /** The worker new runs go to (a group's routing); `failed`: its start failed, no run took that failure yet. */
  get workerState(): 'ready' | 'starting' | 'failed' | 'none' {
    const state = this.current?.state
    if (state === 'ready' || state === 'starting') return state
    return this.early?.state === 'dead' && !this.early.wasReady ? 'failed' : 'none'
  }

  /** Whether a step may be holding the worker new runs go to (`step-permission.ts`), or a run may have left code running in it (`SupervisedWorker.suspectUntil`). */
  get mayBeBlocked(): boolean {
    return this.current !== undefined && (this.current.mayBeBlocked || this.current.suspectUntil > performance.now())
  }

  /** Pid of the replacement being started for the current worker (`recycleAfterRuns`), if any (for tests and diagnostics). */
  get replacementPid(): number | undefined {
    return this.successor?.channel.id
  }

  /**
   * Starts the worker now, so the first run does not pay process start-up (about 0.3 s: Node,
   * isolated-vm, the runtime bundle), and keeps one started after every restart. Does not keep
   * the process alive once started (only while starting). A start has only a generous safety
   * limit (`startTimeoutMs`, default 60 s; issue 14: on a loaded machine it takes as long as the
   * CPU it gets); it ends ready, with the exit, or at that limit (the worker is killed).
   * @throws Error when the worker cannot start (infrastructure) or the supervisor is disposed.
   */
  async prewarm(): Promise<void> {
    if (this.disposed) throw new Error('IsolateSupervisor is disposed')
    this.prewarmed = true
    const worker = this.activeWorker()
    if (worker.state === 'dead') await worker.ready // start()'s worker failed: its error
    if (worker.state === 'starting') await this.waitReady(worker, undefined)
  }

  /**
   * Runs `request.js` in a fresh isolate inside the worker; the same contract as `runInIsolate`.
   * Never rejects for anything the script or the worker process does: a worker crash resolves
   * `error` (or `memory` after a catastrophe), an unanswered deadline `timeout`, an unconfirmed
   * cancel `cancelled`. `toolCalls` is counted here, on the host.
   * @throws RangeError for invalid `limits`; Error when the worker cannot start or the isolate
   *   cannot be created (infrastructure), or the supervisor is disposed.
   */
  async run(request: IsolateRunRequest): Promise<IsolateRunResult> {
    if (this.disposed) throw new Error('IsolateSupervisor is disposed')
    const startedAt = performance.now()
    const limits = resolveRunLimits(request.limits)
    const cancelled = (): IsolateRunResult => ({ status: 'cancelled', error: cancelledError(), logs: [], toolCalls: 0, durationMs: performance.now() - startedAt })
    if (request.signal?.aborted) return cancelled()
    const worker = this.activeWorker()
    this.early = undefined // Claimed: a later failure to start is this run's, or a new worker's.
    if (worker.state === 'dead') await worker.ready // start()'s worker failed: its error
    if (worker.state === 'starting' && (await this.waitReady(worker, request.signal)) === 'aborted') return cancelled()
    if (worker.state !== 'ready') return this.run(request) // Retired meanwhile (another run's catastrophe).
    const run = new SupervisedRun({
      runId: String(this.nextRunId++),
      request,
      limits,
      startedAt,
      graceMs: this.options.graceMs,
      hooks: {
        send: (message) => (message.type === 'run' ? sendStepStart(worker, message) : sendToWorker(worker, message)),
        // The answer to a run's only call outstanding, with none queued, goes at once (issue 12).
        answer: (message, soon) => (soon ? worker.answers.pushAlone(message) : worker.answers.push(message)),
        retire: (reason) => this.retire(worker, reason),
        cancelWhileHeld: () => cancelWhileHeld(worker, this.options.graceMs, (reason) => this.retire(worker, reason)),
        ended: (ended) => {
          if (ended.mayHaveLeftCode) worker.suspectUntil = performance.now() + SUSPECT_MS
          worker.runs.delete(ended.runId)
          if (worker.state === 'draining' && worker.runs.size === 0) this.kill(worker, worker.killReason ?? 'it was drained')
          else refWorker(worker)
        },
      },
    })
    worker.runs.set(run.runId, run)
    refWorker(worker)
    worker.served++
    if (this.options.recycleAfterRuns > 0 && worker.served >= worker.recycleAt) this.replace(worker)
    run.start()
    return run.result
  }

  /**
   * Starts the worker now, not waiting, never keeping the process alive (issue 12: `createHost`).
   * If this start fails, the next `run` (and `prewarm` until then) rejects with the error it would
   * have got itself; the run after starts anew. No-op with a worker running or once disposed.
   */
  start(): void {
    if (!this.disposed && this.current === undefined) this.early = this.activeWorker()
  }

  /** {@link start}, also after a start that failed with no run to claim it (a group's later workers). */
  retryStart(): void {
    if (this.early?.state === 'dead') this.early = undefined
    this.start()
  }

  /**
   * Kills every worker; their pending runs resolve `cancelled`, saying the host was disposed, or
   * as cancelled by the caller when the caller had already asked. Idempotent.
   */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    for (const worker of this.workers) {
      for (const run of [...worker.runs.values()]) run.end(run.cancelledByCaller ? { status: 'cancelled', error: cancelledError() } : disposedEnding())
      this.kill(worker, 'the supervisor was disposed')
    }
    this.current = undefined
    this.successor = undefined
  }

  /**
   * Starts a replacement for `worker`, which keeps serving until the replacement is ready; then
   * new runs go to the replacement and `worker` is retired. A replacement that fails to start is
   * tried again after as many runs again (issue 12: memory).
   */
  private replace(worker: SupervisedWorker): void {
    if (this.current !== worker || this.successor !== undefined || this.disposed) return
    // One drained worker at a time: with long runs and a small recycleAfterRuns, each switch
    // would otherwise leave another process finishing its runs. The next run asks again.
    for (const other of this.workers) if (other.state === 'draining') return
    const next = (this.successor = this.spawn())
    next.ready.then(
      () => {
        if (this.successor !== next) return // A run adopted it already (activeWorker), or disposed.
        this.successor = undefined
        if (next.state !== 'ready') return
        if (this.current !== worker && this.current !== undefined) {
          this.kill(next, 'another worker took its place') // Never left running unused.
          return
        }
        // Also when `worker` was retired meanwhile (a memory run, a missed deadline): the
        // replacement takes its place instead of waiting for a run to start yet another.
        this.current = next
        this.retire(worker, `it served ${worker.served} runs (recycleAfterRuns)`)
      },
      () => {
        if (this.successor === next) this.successor = undefined
        worker.recycleAt += this.options.recycleAfterRuns
      },
    )
  }

  /** Waits for `worker` to be ready while keeping the process alive; 'aborted' when `signal` aborts first. */
  private async waitReady(worker: SupervisedWorker, signal: AbortSignal | undefined): Promise<'ready' | 'aborted'> {
    worker.waiting++
    refWorker(worker)
    try {
      return await raceAbort(worker.ready.then(() => 'ready' as const), signal, () => 'aborted' as const)
    } finally {
      worker.waiting--
      refWorker(worker)
    }
  }

  /** The worker new runs go to, spawned when there is none. */
  private activeWorker(): SupervisedWorker {
    // A failed start() is the next run's failure, not a reason to start another worker yet.
    if (this.early?.state === 'dead' && !this.early.wasReady) return this.early
    if (this.current === undefined || this.current.state === 'draining' || this.current.state === 'dead') {
      // A replacement already starting takes over at once: never two starts for one place.
      const next = this.successor?.state === 'starting' || this.successor?.state === 'ready' ? this.successor : undefined
      this.successor = undefined
      this.current = next ?? this.spawn()
    }
    return this.current
  }

  private spawn(): SupervisedWorker {
    const workerOptions: IsolateWorkerOptions = { poolSize: this.options.poolSize, memoryMb: this.options.memoryMb }
    const { promise: ready, resolve: markReady, reject: failReady } = Promise.withResolvers<void>()
    ready.catch(() => {}) // Observed by whoever awaits it; never an unhandled rejection.
    let worker!: SupervisedWorker
    const handlers: WorkerHandlers = {
      onMessage: (message) => {
        worker.mayBeBlocked = false // It is reading its channel again.
        worker.heard++
        if (message.type !== 'ready') return routeWorkerMessage(worker, message, (reason) => this.retire(worker, reason))
        if (worker.state !== 'starting') return
        worker.state = 'ready'
        worker.wasReady = true
        markReady()
      },
      onExit: (description, stderrTail) => {
        clearTimeout(startLimit)
        this.onExit(worker, description, stderrTail, failReady)
      },
    }
    // A `ptc run` may have started this worker before the host existed (`prestartIsolateWorker`).
    const channel = takePrestartedWorker(workerOptions, this.options.entry, handlers) ?? startIsolateWorker(workerOptions, this.options.entry, handlers)
    // The safety limit of a start: past it the worker is killed and its start fails, saying why.
    const startLimit = setTimeout(() => {
      if (worker.state === 'starting') this.kill(worker, startLimitFailure(this.options.startTimeoutMs))
    }, this.options.startTimeoutMs).unref()
    worker = { channel, state: 'starting', wasReady: false, ready, runs: new Map(), waiting: 0, catastrophe: undefined, killReason: undefined, timers: [], answers: new TurnBatcher((messages) => sendAnswerTurn(worker, messages)), served: 0, recycleAt: this.spawned++ === 0 ? this.options.firstRecycleAfterRuns : this.options.recycleAfterRuns, mayBlock: this.options.mayBlock, mayBeBlocked: false, heard: 0, suspectUntil: 0 }
    this.workers.add(worker)
    refWorker(worker)
    return worker
  }

  /** No new runs go to `worker`; it is killed once its runs are done, or after `drainGraceMs`. */
  private retire(worker: SupervisedWorker, reason: string): void {
    if (worker.state === 'draining' || worker.state === 'dead') return
    const wasReady = worker.wasReady
    worker.state = 'draining'
    if (this.current === worker) this.current = undefined
    if (worker.runs.size === 0) this.kill(worker, reason)
    else worker.timers.push(setTimeout(() => this.kill(worker, `${reason}; its runs did not finish within ${this.options.drainGraceMs} ms`), this.options.drainGraceMs).unref())
    // Keep a warm replacement when asked to, but never respawn in a loop after start-up failures.
    if (this.prewarmed && wasReady && !this.disposed) this.activeWorker().ready.catch(() => {})
  }

  private kill(worker: SupervisedWorker, reason: string): void {
    if (worker.state === 'dead') return
    worker.killReason ??= reason
    worker.state = 'draining'
    if (this.current === worker) this.current = undefined
    worker.channel.kill()
  }

  private onExit(worker: SupervisedWorker, description: string, stderrTail: string, failReady: (error: Error) => void): void {
    if (worker.state === 'dead') return
    const wasStarting = !worker.wasReady
    worker.state = 'dead'
    for (const timer of worker.timers) clearTimeout(timer)
    this.workers.delete(worker)
    if (this.current === worker) this.current = undefined
    if (wasStarting) {
      const how = worker.killReason !== undefined ? `was stopped: ${worker.killReason}.` : `exited before it was ready (${description}).`
      failReady(new Error(`the isolate worker process ${how}${stderrNote(stderrTail)}`))
    }
    for (const run of [...worker.runs.values()]) run.end(exitEnding(worker, run.runId, run.statedLimits, description))
  }
}
