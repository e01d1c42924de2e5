/**
 * The isolate worker processes' lifecycle (SPEC S9.1–S9.3, S9.7; issue 3: "the host survives what
 * a script does"). isolated-vm can fail catastrophically: `new Array(2 ** 31 - 1).fill(0)` drives
 * v8 into an out-of-memory it cannot contain, the isolate's thread never ends and the process can
 * no longer exit. So isolates live in a child process (`isolate-worker-entry.ts`) that the
 * supervisor can always SIGKILL and replace, while tool calls run here, in the host, through the
 * caller's `dispatch` ({@link SupervisedRun}, one per run).
 */
import { raceAbort } from '../../pipeline/race-abort.ts'
import { DEFAULT_START_TIMEOUT_MS, startLimitFailure, stderrNote, type WorkerChannel } from '../worker-channel.ts'
import type { ChildMessage, IsolateRunRequest, IsolateRunResult, IsolateSupervisorOptions, IsolateWorkerOptions, ParentMessage, WorkerAnswerMessage } from './isolate-contract.ts'
import { cancelledError, catastropheEnding, disposedEnding, workerCrashEnding } from './run-endings.ts'
import { resolveRunLimits } from './run-limits.ts'
import { compactAnswers } from './answer-tuples.ts'
import { SupervisedRun } from './supervised-run.ts'
import { TurnBatcher } from './turn-batcher.ts'
import { DEFAULT_WORKER_ENTRY, startIsolateWorker, takePrestartedWorker, type WorkerHandlers } from './worker-start.ts'

export type { IsolateSupervisorOptions } from './isolate-contract.ts'
export { WORKER_NO_PRETENURING, WORKER_SEMI_SPACE_MB } from './worker-start.ts'

/**
 * One worker process and the runs it is serving. `wasReady`: it has been ready (before draining
 * or death); `waiting`: runs waiting for ready; `catastrophe`: the first one it reported;
 * `killReason`: why we killed it (absent: it died on its own); `answers`: sent once per turn.
 */
interface Worker {
  readonly channel: WorkerChannel<ParentMessage>
  state: 'starting' | 'ready' | 'draining' | 'dead'
  wasReady: boolean
  readonly ready: Promise<void>
  readonly runs: Map<string, SupervisedRun>
  waiting: number
  catastrophe: string | undefined
  killReason: string | undefined
  timers: NodeJS.Timeout[]
  readonly answers: TurnBatcher<WorkerAnswerMessage>
}

/**
 * Runs scripts like `runInIsolate` (same request, same result, same guarantees), but in a
 * supervised child process. Use one per host; many concurrent runs share its worker. Whatever
 * the worker does, every run resolves within its wall-clock limit plus `graceMs`, and an idle
 * supervisor never keeps the Node process alive.
 *
 * Restart semantics: a worker that reports an isolated-vm catastrophe, returns a `memory` run (a
 * memory kill can also leave an isolate thread spinning), or misses a deadline or cancel is
 * retired: new runs go to a fresh worker, its remaining runs may finish, and it is SIGKILLed once
 * they are done (or after `drainGraceMs`). A worker that exits unexpectedly resolves each of its
 * runs with status `error` (`memory` after a catastrophe) and aborts their tool calls' signals.
 */
export class IsolateSupervisor {
  private readonly options: Required<IsolateSupervisorOptions>
  private current: Worker | undefined
  private readonly workers = new Set<Worker>()
  private nextRunId = 0
  private prewarmed = false
  /** The worker {@link start} began, until a run claims it. */
  private early: Worker | undefined
  private disposed = false

  constructor(options: IsolateSupervisorOptions = {}) {
    this.options = {
      poolSize: options.poolSize ?? 2,
      memoryMb: options.memoryMb ?? 128,
      graceMs: options.graceMs ?? 1_000,
      drainGraceMs: options.drainGraceMs ?? 30_000,
      entry: options.entry ?? DEFAULT_WORKER_ENTRY,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    }
  }

  /** Pid of the worker new runs go to, if one is running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.current?.channel.id
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
        send: (message) => this.send(worker, message),
        answer: (message) => worker.answers.push(message),
        retire: (reason) => this.retire(worker, reason),
        ended: (ended) => {
          worker.runs.delete(ended.runId)
          if (worker.state === 'draining' && worker.runs.size === 0) this.kill(worker, worker.killReason ?? 'it was drained')
          else this.updateRef(worker)
        },
      },
    })
    worker.runs.set(run.runId, run)
    this.updateRef(worker)
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

  /** Kills every worker; their pending runs resolve `error`. Idempotent. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    for (const worker of this.workers) {
      for (const run of [...worker.runs.values()]) run.end(disposedEnding())
      this.kill(worker, 'the supervisor was disposed')
    }
    this.current = undefined
  }

  /** Waits for `worker` to be ready while keeping the process alive; 'aborted' when `signal` aborts first. */
  private async waitReady(worker: Worker, signal: AbortSignal | undefined): Promise<'ready' | 'aborted'> {
    worker.waiting++
    this.updateRef(worker)
    try {
      return await raceAbort(worker.ready.then(() => 'ready' as const), signal, () => 'aborted' as const)
    } finally {
      worker.waiting--
      this.updateRef(worker)
    }
  }

  /** The worker new runs go to, spawned when there is none. */
  private activeWorker(): Worker {
    // A failed start() is the next run's failure, not a reason to start another worker yet.
    if (this.early?.state === 'dead' && !this.early.wasReady) return this.early
    if (this.current === undefined || this.current.state === 'draining' || this.current.state === 'dead') this.current = this.spawn()
    return this.current
  }

  private spawn(): Worker {
    const workerOptions: IsolateWorkerOptions = { poolSize: this.options.poolSize, memoryMb: this.options.memoryMb }
    const { promise: ready, resolve: markReady, reject: failReady } = Promise.withResolvers<void>()
    ready.catch(() => {}) // Observed by whoever awaits it; never an unhandled rejection.
    let worker!: Worker
    const handlers: WorkerHandlers = {
      onMessage: (message) => {
        if (message.type !== 'ready') return this.onMessage(worker, message)
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
    worker = { channel, state: 'starting', wasReady: false, ready, runs: new Map(), waiting: 0, catastrophe: undefined, killReason: undefined, timers: [], answers: new TurnBatcher((messages) => this.sendAnswers(worker, messages)) }
    this.workers.add(worker)
    this.updateRef(worker)
    return worker
  }

  private onMessage(worker: Worker, message: Exclude<ChildMessage, { type: 'ready' }>): void {
    switch (message.type) {
      case 'batch':
        for (const entry of message.messages) this.onMessage(worker, entry)
        break
      case 'dispatch': {
        const run = worker.runs.get(message.runId)
        if (run !== undefined) run.onDispatch(message)
        else worker.answers.push({ type: 'answer', runId: message.runId, pairingId: message.pairingId, outcome: { ok: false, message: 'the run ended' } })
        break
      }
      case 'abort-call':
        worker.runs.get(message.runId)?.onAbortCall(message.pairingId)
        break
      case 'result':
        worker.runs.get(message.runId)?.end(message.result)
        // A memory kill can leave the isolate's thread running (observed with a 16 MB
        // `new Array(2 ** 31 - 1).fill(0)`, no catastrophe reported): the process could no longer exit.
        if (message.result.status === 'memory') this.retire(worker, 'a run hit its memory limit')
        break
      case 'failure':
        worker.runs.get(message.runId)?.fail(Object.assign(new Error(message.error.message), { name: message.error.name }))
        break
      case 'catastrophe':
        worker.catastrophe ??= message.message
        this.retire(worker, `isolated-vm reported a catastrophic error: ${message.message}`)
        break
    }
  }

  /** No new runs go to `worker`; it is killed once its runs are done, or after `drainGraceMs`. */
  private retire(worker: Worker, reason: string): void {
    if (worker.state === 'draining' || worker.state === 'dead') return
    const wasReady = worker.wasReady
    worker.state = 'draining'
    if (this.current === worker) this.current = undefined
    if (worker.runs.size === 0) {
      this.kill(worker, reason)
    } else {
      const timer = setTimeout(() => this.kill(worker, `${reason}; its runs did not finish within ${this.options.drainGraceMs} ms`), this.options.drainGraceMs)
      timer.unref()
      worker.timers.push(timer)
    }
    // Keep a warm replacement when asked to, but never respawn in a loop after start-up failures.
    if (this.prewarmed && wasReady && !this.disposed) this.activeWorker().ready.catch(() => {})
  }

  private kill(worker: Worker, reason: string): void {
    if (worker.state === 'dead') return
    worker.killReason ??= reason
    worker.state = 'draining'
    if (this.current === worker) this.current = undefined
    worker.channel.kill()
  }

  private onExit(worker: Worker, description: string, stderrTail: string, failReady: (error: Error) => void): void {
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
    for (const run of [...worker.runs.values()]) {
      if (worker.catastrophe !== undefined) run.end(catastropheEnding(worker.catastrophe, run.limits.memoryMb, true))
      else run.end(workerCrashEnding(worker.killReason !== undefined ? `was stopped (${worker.killReason})` : `crashed (${description})`))
    }
  }

  /** The answers of one turn as one message; one by one if that fails, so only an unclonable outcome fails. */
  private sendAnswers(worker: Worker, messages: WorkerAnswerMessage[]): void {
    const compact = compactAnswers(messages)
    if (compact !== undefined && this.send(worker, compact)) return
    if (messages.length > 1 && this.send(worker, { type: 'batch', messages })) return
    for (const { runId, pairingId, ...answer } of messages) {
      if (this.send(worker, { runId, pairingId, ...answer }) || answer.outcome === undefined) continue
      this.send(worker, { type: 'answer', runId, pairingId, rejection: 'the tool result could not be sent to the isolate (not plain data)' })
    }
  }

  /** Sends one message (queued answers first); false when the channel is closed or the message cannot be cloned. */
  private send(worker: Worker, message: ParentMessage): boolean {
    if (message.type !== 'answer' && message.type !== 'batch' && message.type !== 'answers') worker.answers.flush()
    if (worker.state === 'dead') return false
    return worker.channel.send(message)
  }

  /** Ref the worker while runs are pending or waiting for it; unref it when idle. */
  private updateRef(worker: Worker): void {
    if (worker.state !== 'dead') worker.channel.setRef(worker.runs.size > 0 || worker.waiting > 0)
  }
}
