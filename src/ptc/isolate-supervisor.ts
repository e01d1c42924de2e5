/**
 * Runs `run_code` scripts in a supervised isolate worker process (SPEC S9.1–S9.3, S9.7; issue 3:
 * "the host survives what a script does"). isolated-vm can fail catastrophically: a script like
 * `new Array(2 ** 31 - 1).fill(0)` drives v8 into an out-of-memory it cannot contain, the
 * isolate's thread never terminates and the process can no longer exit. So isolates live in a
 * child process (`isolate-worker-entry.ts`) that the supervisor can always SIGKILL and replace,
 * while tool calls still run here, in the host, through the caller's `dispatch`.
 *
 * Guarantees, whatever the child does: every run resolves (never hangs) within its wall-clock
 * limit plus `graceMs`; a crash of the child resolves its runs with a clear status; the next run
 * gets a fresh child; and the supervisor never keeps the Node process alive while it is idle.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { IsolateRunRequest, IsolateRunResult, IsolateToolOutcome } from './isolate-runner.ts'
import type { ChildMessage, IsolateWorkerOptions, ParentMessage, WorkerAnswerMessage, WorkerDispatchMessage } from './isolate-worker-protocol.ts'
import { cancelledError } from './run-endings.ts'
import { resolveRunLimits, type RunLimits } from './run-limits.ts'

/** Options of an {@link IsolateSupervisor}. Durations in ms. */
export interface IsolateSupervisorOptions {
  /** Isolates the worker keeps prepared (default 2; see `IsolatePoolOptions.size`). */
  poolSize?: number
  /** Heap limit in MB of the worker's pooled isolates (default 128). Other limits bypass the pool. */
  memoryMb?: number
  /**
   * Slack in ms the worker gets past a run's `wallClockMs` before the supervisor gives up on it
   * (status `timeout`, worker recycled), and the time a `cancel` may take to be confirmed before
   * the run resolves `cancelled` anyway (worker recycled). Default 1 000.
   */
  graceMs?: number
  /**
   * How long in ms a retired worker (after a catastrophe, a `memory` run, an unanswered deadline
   * or cancel) may keep finishing its other runs before it is SIGKILLed; those runs then resolve
   * `error`. Default 30 000.
   */
  drainGraceMs?: number
  /** How long in ms a new worker may take to report `ready` before it is killed. Default 20 000. */
  startTimeoutMs?: number
  /** The worker's main module (default `isolate-worker-entry.ts` next to this file). */
  entry?: string
}

const DEFAULT_ENTRY = fileURLToPath(new URL('./isolate-worker-entry.ts', import.meta.url))
const EXEC_ARGV = ['--no-node-snapshot']

/** Every live worker process of every supervisor, SIGKILLed when the host process exits. */
const liveChildren = new Set<ChildProcess>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // A child that saw a catastrophe cannot exit by itself; never leave it behind, spinning.
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL')
  })
}

type WorkerState = 'starting' | 'ready' | 'draining' | 'dead'

/** One child process and the runs it is serving. */
interface Worker {
  readonly child: ChildProcess
  state: WorkerState
  /** Set once it has been `ready` (before draining/death). */
  wasReady: boolean
  readonly ready: Promise<void>
  readonly runs: Map<string, SupervisedRun>
  /** Runs waiting for `ready`. */
  waiting: number
  /** The first catastrophe message it reported. */
  catastrophe: string | undefined
  /** Why the supervisor killed it (absent: it died on its own). */
  killReason: string | undefined
  timers: NodeJS.Timeout[]
  /** Answers waiting for the end of this event-loop turn (see `WorkerAnswerBatchMessage`). */
  answers: WorkerAnswerMessage[]
  answersScheduled: boolean
}

interface SupervisedRun {
  readonly runId: string
  readonly request: IsolateRunRequest
  readonly limits: RunLimits
  readonly startedAt: number
  readonly worker: Worker
  /** Host-side signals of the tool calls in flight, by pairing id. */
  readonly calls: Map<string, AbortController>
  readonly timers: NodeJS.Timeout[]
  onAbort: (() => void) | undefined
  ended: boolean
  resolve: (result: IsolateRunResult) => void
  reject: (error: Error) => void
}

type Ending = Pick<IsolateRunResult, 'status' | 'error'>

/**
 * Runs scripts like {@link runInIsolate} (same request, same result, same guarantees), but in a
 * supervised child process. Use one per host; many concurrent runs share its worker.
 *
 * Restart semantics: a worker that reports an isolated-vm catastrophe, returns a `memory` run (a
 * memory kill can also leave an isolate thread spinning), or misses a deadline or cancel is
 * retired: new runs go to a fresh worker, its remaining runs may finish, and it is SIGKILLed once
 * they are done (or after `drainGraceMs`). A worker that exits unexpectedly resolves each of its
 * runs with status `error` (`memory` after a catastrophe) and aborts their tool calls' signals.
 */
export class IsolateSupervisor {
  private readonly options: Required<Omit<IsolateSupervisorOptions, 'entry'>> & { entry: string }
  private current: Worker | undefined
  private readonly workers = new Set<Worker>()
  private nextRunId = 0
  private prewarmed = false
  private disposed = false

  constructor(options: IsolateSupervisorOptions = {}) {
    this.options = {
      poolSize: options.poolSize ?? 2,
      memoryMb: options.memoryMb ?? 128,
      graceMs: options.graceMs ?? 1_000,
      drainGraceMs: options.drainGraceMs ?? 30_000,
      startTimeoutMs: options.startTimeoutMs ?? 20_000,
      entry: options.entry ?? DEFAULT_ENTRY,
    }
  }

  /** Pid of the worker new runs go to, if one is running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.current?.child.pid
  }

  /**
   * Starts the worker now, so the first run does not pay process start-up (about 0.3 s: Node,
   * isolated-vm, the runtime bundle), and keeps one started after every restart. Does not keep
   * the process alive once started (only while starting, at most `startTimeoutMs`).
   * @throws Error when the worker cannot start (infrastructure) or the supervisor is disposed.
   */
  async prewarm(): Promise<void> {
    if (this.disposed) throw new Error('IsolateSupervisor is disposed')
    this.prewarmed = true
    const worker = this.activeWorker()
    if (worker.state !== 'starting') return
    worker.waiting++
    this.updateRef(worker)
    try {
      await worker.ready
    } finally {
      worker.waiting--
      this.updateRef(worker)
    }
  }

  /**
   * Runs `request.js` in a fresh isolate inside the worker; the same contract as `runInIsolate`.
   * Never rejects for anything the script or the worker process does: a worker crash resolves
   * `error` (or `memory` after a catastrophe), an unanswered deadline `timeout`, an unconfirmed
   * cancel `cancelled`.
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
    if (worker.state === 'starting') {
      worker.waiting++
      this.updateRef(worker)
      try {
        if ((await raceAbort(worker.ready, request.signal)) === 'aborted') return cancelled()
      } finally {
        worker.waiting--
        this.updateRef(worker)
      }
    }
    if (worker.state !== 'ready') {
      // It was retired or died between `ready` and now (another run's catastrophe): use a fresh one.
      return this.run(request)
    }
    return new Promise<IsolateRunResult>((resolve, reject) => this.startRun(worker, request, limits, startedAt, resolve, reject))
  }

  /** Kills every worker and resolves their pending runs with status `error`. Idempotent. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    for (const worker of this.workers) {
      for (const run of worker.runs.values()) this.endRun(run, { status: 'error', error: { name: 'WorkerCrashError', message: 'the isolate supervisor was disposed; the run was stopped' } })
      this.kill(worker, 'the supervisor was disposed')
    }
    this.current = undefined
  }

  private startRun(worker: Worker, request: IsolateRunRequest, limits: RunLimits, startedAt: number, resolve: (result: IsolateRunResult) => void, reject: (error: Error) => void): void {
    const run: SupervisedRun = { runId: String(this.nextRunId++), request, limits, startedAt, worker, calls: new Map(), timers: [], onAbort: undefined, ended: false, resolve, reject }
    worker.runs.set(run.runId, run)
    this.updateRef(worker)
    // Counted from now, not from `startedAt`: the worker's own wall clock starts when it gets the
    // run, and start-up is bounded separately by `startTimeoutMs`.
    run.timers.push(
      setTimeout(() => {
        this.endRun(run, deadlineEnding(limits.wallClockMs))
        this.retire(worker, `a run's deadline passed without an answer`)
      }, limits.wallClockMs + this.options.graceMs),
    )
    if (request.signal !== undefined) {
      run.onAbort = () => {
        this.send(worker, { type: 'cancel', runId: run.runId })
        run.timers.push(
          setTimeout(() => {
            this.endRun(run, { status: 'cancelled', error: cancelledError() })
            this.retire(worker, 'a cancel was not confirmed in time')
          }, this.options.graceMs),
        )
      }
      request.signal.addEventListener('abort', run.onAbort, { once: true })
    }
    const sent = this.send(worker, { type: 'run', runId: run.runId, js: request.js, toolNames: [...request.toolNames], limits })
    if (!sent) this.endRun(run, crashEnding(worker))
  }

  /** The worker new runs go to, spawned when there is none. */
  private activeWorker(): Worker {
    if (this.current === undefined || this.current.state === 'draining' || this.current.state === 'dead') this.current = this.spawn()
    return this.current
  }

  private spawn(): Worker {
    const workerOptions: IsolateWorkerOptions = { poolSize: this.options.poolSize, memoryMb: this.options.memoryMb }
    const child = fork(this.options.entry, [JSON.stringify(workerOptions)], {
      execPath: process.execPath,
      execArgv: EXEC_ARGV,
      // Structured clone rather than JSON: the messages carry JSON text (arguments, results) that
      // 'json' would escape and parse a second time; about 10 % per sequential call.
      serialization: 'advanced',
      // Node's compile cache also caches type-stripped TypeScript: a warm start skips loading the
      // stripper and recompiling the modules (about 0.3 s of the worker's start-up). Same
      // default folder as `module.enableCompileCache()`; an explicit setting wins.
      env: { NODE_COMPILE_CACHE: path.join(tmpdir(), 'node-compile-cache'), ...process.env },
      // The child's stdout goes to our stderr: `ptc run --json` owns stdout.
      stdio: ['ignore', 2, 'inherit', 'ipc'],
    })
    let markReady!: () => void
    let failReady!: (error: Error) => void
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve
      failReady = reject
    })
    ready.catch(() => {}) // Observed by whoever awaits it; never an unhandled rejection.
    const worker: Worker = { child, state: 'starting', wasReady: false, ready, runs: new Map(), waiting: 0, catastrophe: undefined, killReason: undefined, timers: [], answers: [], answersScheduled: false }
    this.workers.add(worker)
    liveChildren.add(child)
    installExitHook()
    const startTimer = setTimeout(() => this.kill(worker, `it did not start within ${this.options.startTimeoutMs} ms`), this.options.startTimeoutMs)
    startTimer.unref()
    worker.timers.push(startTimer)
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        clearTimeout(startTimer)
        if (worker.state !== 'starting') return
        worker.state = 'ready'
        worker.wasReady = true
        markReady()
      } else {
        this.onMessage(worker, message)
      }
    })
    child.on('error', () => {
      // Spawn failures end in 'exit' too (code -2 and friends) or leave no pid; send failures are
      // handled where we send. Listening keeps an 'error' from crashing the host.
      if (child.pid === undefined) this.onExit(worker, null, null, failReady)
    })
    child.on('exit', (code, signal) => this.onExit(worker, code, signal, failReady))
    this.updateRef(worker)
    return worker
  }

  private onMessage(worker: Worker, message: ChildMessage): void {
    switch (message.type) {
      case 'batch':
        for (const entry of message.messages) this.onMessage(worker, entry)
        break
      case 'dispatch':
        this.onDispatch(worker, message)
        break
      case 'abort-call': {
        const run = worker.runs.get(message.runId)
        const controller = run?.calls.get(message.pairingId)
        run?.calls.delete(message.pairingId)
        controller?.abort(new Error('run ended'))
        break
      }
      case 'result': {
        const run = worker.runs.get(message.runId)
        if (run !== undefined) this.endRun(run, message.result)
        // A memory kill can leave the isolate's thread running (observed with a 16 MB
        // `new Array(2 ** 31 - 1).fill(0)`, no catastrophe reported): the process could no longer exit.
        if (message.result.status === 'memory') this.retire(worker, 'a run hit its memory limit')
        break
      }
      case 'failure': {
        const run = worker.runs.get(message.runId)
        if (run !== undefined) this.endRun(run, undefined, Object.assign(new Error(message.error.message), { name: message.error.name }))
        break
      }
      case 'catastrophe':
        worker.catastrophe ??= message.message
        this.retire(worker, `isolated-vm reported a catastrophic error: ${message.message}`)
        break
    }
  }

  /** Runs the host-side `dispatch` for one call from the worker and sends its answer back. */
  private onDispatch(worker: Worker, message: WorkerDispatchMessage): void {
    const { runId, pairingId } = message
    const run = worker.runs.get(runId)
    if (run === undefined || run.ended) {
      this.answer(worker, { type: 'answer', runId, pairingId, outcome: { ok: false, message: 'the run ended' } })
      return
    }
    const controller = new AbortController()
    run.calls.set(pairingId, controller)
    let outcome: Promise<IsolateToolOutcome>
    try {
      outcome = Promise.resolve(run.request.dispatch({ pairingId, name: message.name, argsJson: message.argsJson, signal: controller.signal }))
    } catch (error) {
      outcome = Promise.reject(error)
    }
    const answer = (fields: { outcome: IsolateToolOutcome } | { rejection: string }): void => {
      if (run.ended || run.calls.get(pairingId) !== controller) return // Discarded: the run or the call is over.
      run.calls.delete(pairingId)
      this.answer(worker, { type: 'answer', runId, pairingId, ...fields })
    }
    outcome.then(
      (result) => answer({ outcome: plainOutcome(result) }),
      (error: unknown) => answer({ rejection: error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error' }),
    )
  }

  /** Resolves (or, with `failure`, rejects) a run once; aborts its calls; drains its worker. */
  private endRun(run: SupervisedRun, ending: Ending | IsolateRunResult | undefined, failure?: Error): void {
    if (run.ended) return
    run.ended = true
    for (const timer of run.timers) clearTimeout(timer)
    if (run.onAbort !== undefined) run.request.signal?.removeEventListener('abort', run.onAbort)
    const reason = new Error(`run ended (${ending?.status ?? 'failure'})`)
    for (const controller of run.calls.values()) controller.abort(reason)
    run.calls.clear()
    const { worker } = run
    worker.runs.delete(run.runId)
    if (failure !== undefined || ending === undefined) {
      run.reject(failure ?? new Error('the isolate worker failed'))
    } else {
      const full = 'logs' in ending ? ending : { ...ending, logs: [], toolCalls: 0 }
      run.resolve({ ...full, durationMs: performance.now() - run.startedAt })
    }
    if (worker.state === 'draining' && worker.runs.size === 0) this.kill(worker, worker.killReason ?? 'it was drained')
    else this.updateRef(worker)
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
    worker.child.kill('SIGKILL')
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null, failReady: (error: Error) => void): void {
    if (worker.state === 'dead') return
    const wasStarting = !worker.wasReady
    worker.state = 'dead'
    for (const timer of worker.timers) clearTimeout(timer)
    liveChildren.delete(worker.child)
    this.workers.delete(worker)
    if (this.current === worker) this.current = undefined
    if (wasStarting) {
      failReady(new Error(`the isolate worker process ${worker.killReason !== undefined ? `was stopped: ${worker.killReason}` : `exited before it was ready (${exitText(code, signal)}); see its stderr`}`))
    }
    for (const run of [...worker.runs.values()]) this.endRun(run, crashEnding(worker, code, signal))
  }

  /**
   * Queues one answer; the answers of an event-loop turn go out as one message, so a burst of
   * parallel calls costs one IPC write.
   */
  private answer(worker: Worker, message: WorkerAnswerMessage): void {
    worker.answers.push(message)
    if (worker.answersScheduled) return
    worker.answersScheduled = true
    setImmediate(() => this.flushAnswers(worker))
  }

  private flushAnswers(worker: Worker): void {
    worker.answersScheduled = false
    if (worker.answers.length === 0) return
    const messages = worker.answers
    worker.answers = []
    if (messages.length > 1 && this.send(worker, { type: 'batch', messages })) return
    // One answer, or a batch that could not be sent (an outcome that cannot be cloned): one by
    // one, so only the offending call fails.
    for (const message of messages) {
      if (!this.send(worker, message) && message.outcome !== undefined) {
        this.send(worker, { type: 'answer', runId: message.runId, pairingId: message.pairingId, rejection: 'the tool result could not be sent to the isolate (not plain data)' })
      }
    }
  }

  /** Sends one message; false when the channel is closed or the message cannot be cloned. */
  private send(worker: Worker, message: ParentMessage): boolean {
    if (message.type !== 'answer' && message.type !== 'batch' && worker.answers.length > 0) this.flushAnswers(worker)
    if (worker.state === 'dead' || !worker.child.connected) return false
    try {
      worker.child.send(message)
      return true
    } catch {
      return false
    }
  }

  /** Ref the child while runs are pending or waiting for it; unref it when idle. */
  private updateRef(worker: Worker): void {
    if (worker.state === 'dead') return
    if (worker.runs.size > 0 || worker.waiting > 0) {
      worker.child.ref()
      worker.child.channel?.ref()
    } else {
      worker.child.unref()
      worker.child.channel?.unref()
    }
  }
}

/** Resolves 'ready' when `ready` does, 'aborted' when `signal` aborts first; rejects with `ready`. */
function raceAbort(ready: Promise<void>, signal: AbortSignal | undefined): Promise<'ready' | 'aborted'> {
  if (signal === undefined) return ready.then(() => 'ready' as const)
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve('aborted')
    signal.addEventListener('abort', onAbort, { once: true })
    ready.then(
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve('ready')
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** A plain copy of what `dispatch` resolved to; the worker's runner judges its shape. */
function plainOutcome(outcome: IsolateToolOutcome): IsolateToolOutcome {
  if (outcome === null || typeof outcome !== 'object') return { ok: false, message: 'the tool returned a malformed outcome' }
  const { ok, valueJson, message } = outcome as { ok?: unknown; valueJson?: unknown; message?: unknown }
  return { ok, valueJson, message } as IsolateToolOutcome
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`
}

function crashEnding(worker: Worker, code: number | null = null, signal: NodeJS.Signals | null = null): Ending {
  if (worker.catastrophe !== undefined) {
    return {
      status: 'memory',
      error: {
        name: 'MemoryError',
        message: `The isolate failed catastrophically (${worker.catastrophe}), typically from exhausting its memory limit (memoryMb) with one huge allocation; the isolate worker process was restarted and the next run uses a fresh worker. Process data in smaller pieces.`,
      },
    }
  }
  const what = worker.killReason !== undefined ? `was stopped (${worker.killReason})` : `crashed (${exitText(code, signal)})`
  return { status: 'error', error: { name: 'WorkerCrashError', message: `the isolate worker process ${what}; the run was stopped; the next run uses a fresh worker` } }
}

function deadlineEnding(wallClockMs: number): Ending {
  return {
    status: 'timeout',
    error: {
      name: 'TimeoutError',
      message: `The script did not finish within the wall-clock limit of ${wallClockMs} ms (wallClockMs), and the isolate worker process did not answer in time, so it was restarted. Make fewer or smaller calls, or run the work in parts.`,
    },
  }
}
