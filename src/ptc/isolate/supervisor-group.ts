/**
 * Runs over several isolate worker processes (SPEC S9.1, issue 12): runs in flight together go
 * to different workers, so one busy or held worker (`step-permission.ts`) delays no other run,
 * and a worker may run a run's steps on its main thread only while another stands idle. Runs
 * that come one after another take turns while they are short: each needs a fresh isolate, which
 * isolated-vm makes only synchronously on the thread that will own it, so a worker spends about
 * as long cleaning up after a run and making the next isolate as raw isolated-vm spends on a
 * whole short run, and the other worker serves the next one meanwhile. After a long run, or a
 * pause, that clean-up is done or small beside the run, and the next run stays on the worker
 * whose run ended last ({@link STICK_AFTER_MS}): the code a call runs through there is usually
 * the one the JIT has warmed, where taking turns left each worker half the calls to warm up with.
 * Each member is a whole {@link IsolateSupervisor}
 * (its own restarts, recycling and watchdogs), so a worker that crashes or is retired costs only
 * its own runs, and the others keep serving while it is replaced.
 */
import { DEFAULT_RECYCLE_AFTER_RUNS, type IsolateRunRequest, type IsolateRunResult, type IsolateSupervisorOptions } from './isolate-contract.ts'
import { IsolateSupervisor } from './isolate-supervisor.ts'
import { mayHoldWorker, readyAndFree, routingLoad } from './step-permission.ts'

/** Default of {@link SupervisorGroupOptions.workers} and of `PtcConfig.isolateWorkers`. */
export const DEFAULT_ISOLATE_WORKERS = 2

/** Most worker processes a group may have (each is a Node process of 70-90 MB). */
export const MAX_ISOLATE_WORKERS = 16

/** Runs of the group after which a worker whose start failed is started again. */
const RESTART_EVERY_RUNS = 100

/**
 * Default of {@link SupervisorGroupOptions.spreadFromRun}: the second run, so a host's one run
 * (`ptc run`) starts one worker, and a host that goes on has the others started while its runs are
 * still few. With the tenth, a burst of back-to-back runs right after the host's start ran its
 * first 40-60 runs at about twice the time of the later ones while the second worker started
 * (issue 12: the peer harness's cold run, a fresh host's first run, ten more, then 200, alternating
 * processes, 2026-12-05 18:40: medians 3.91, 4.13, 4.77, 4.25 ms a run with the tenth, 3.77, 3.35,
 * 4.05, 3.60 with the second).
 */
export const DEFAULT_SPREAD_FROM_RUN = 2

/**
 * On a tie, a run goes to the worker whose run ended last if that run took at least this long or
 * ended at least this long ago (ms); otherwise to the next worker in turn. Peer
 * harness, round 27 (11:36, load 1.3): staying always made W2 (sequential calls) 94.7 -> 84.1 us
 * a call and W4 (64 KB results) 1,099 -> 995, but W1 (back-to-back trivial runs of 4 ms) 4.12 ->
 * 5.15 ms a run.
 */
export const STICK_AFTER_MS = 20

/**
 * Whether a run that ties goes to the worker that served the last one (`true`) rather than to the
 * next in turn: before its first run, after a run of at least {@link STICK_AFTER_MS}, or when that
 * run ended at least as long before `now` (`performance.now()`, ms).
 */
export function staysWithLast(last: { readonly lastRunMs: number | undefined; readonly lastEndAt: number | undefined }, now: number): boolean {
  const { lastRunMs, lastEndAt } = last
  return lastRunMs === undefined || lastEndAt === undefined || lastRunMs >= STICK_AFTER_MS || now - lastEndAt >= STICK_AFTER_MS
}

/** Options of an {@link IsolateSupervisorGroup}: every member's, and how many there are. */
export interface SupervisorGroupOptions extends IsolateSupervisorOptions {
  /** Worker processes runs are spread over, 1 to {@link MAX_ISOLATE_WORKERS} (default {@link DEFAULT_ISOLATE_WORKERS}). */
  workers?: number
  /**
   * The run of the group (1-based) that starts the later workers, unless a run arrives sooner
   * while the first worker still holds one (default {@link DEFAULT_SPREAD_FROM_RUN}).
   */
  spreadFromRun?: number
}

/** One worker's supervisor, the runs it holds, and from which run of the group a failed start of it is tried again. */
interface Member {
  readonly supervisor: IsolateSupervisor
  active: number
  retryAt: number
  /** Runs routed to this member so far (diagnostics: `runsByWorker`). */
  served: number
  /** How long its last run took, and when it ended (`performance.now()`, ms); `undefined` before its first. */
  lastRunMs: number | undefined
  lastEndAt: number | undefined
}

/**
 * Runs the first worker of member `index` (of `workers`) serves before its replacement, for
 * `recycleAfterRuns` = `recycle` (0: never): staggered (issue 12: memory), so that workers that
 * share overlapping runs are not replaced together, all of their warm-up at once. Member 0
 * after `recycle`, the others a share of `recycle` later (none sooner: apart is enough).
 */
export function firstRecycleAfterRuns(recycle: number, index: number, workers: number): number {
  return recycle + Math.round((recycle * index) / workers)
}

/**
 * The same contract as one {@link IsolateSupervisor} (`run`, `start`, `prewarm`, `dispose`).
 * The first worker starts as one supervisor's does; the others start when the group has work
 * for them: with the first run that arrives while the first worker still holds one (runs that
 * overlap), else with run `spreadFromRun` (default 2) of back-to-back or occasional runs. A
 * second worker pays off for runs that come faster than one worker makes isolates, and costs
 * 70-90 MB and about 0.3 s of CPU to start, so a host that makes one run (`ptc run`) starts one
 * process. A worker that died or was retired is
 * replaced with the next run; one whose start failed is tried again {@link RESTART_EVERY_RUNS}
 * runs later (the first one's failure is the next run's when no other worker is ready). A run
 * goes to the ready worker with the fewest runs in flight; on a tie, to the worker whose run ended
 * last or the one after it (see above); a worker a step may be holding only when every ready one may
 * (`step-permission.ts`); when none is ready, to whichever starting worker is ready first, else
 * to the first worker.
 */
export class IsolateSupervisorGroup {
  readonly #members: Member[]
  readonly #spreadFromRun: number
  /** Whether every member has a worker (see the class comment). */
  #spread = false
  #last = 0
  #runs = 0

  /** @throws RangeError when `workers` is not an integer from 1 to {@link MAX_ISOLATE_WORKERS}. */
  constructor(options: SupervisorGroupOptions = {}) {
    const { workers = DEFAULT_ISOLATE_WORKERS, spreadFromRun = DEFAULT_SPREAD_FROM_RUN, ...each } = options
    this.#spreadFromRun = spreadFromRun
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_ISOLATE_WORKERS) {
      throw new RangeError(`workers must be an integer from 1 to ${MAX_ISOLATE_WORKERS}, got ${workers}`)
    }
    const recycle = each.recycleAfterRuns ?? DEFAULT_RECYCLE_AFTER_RUNS
    this.#members = Array.from({ length: workers }, (_, index) => ({
      supervisor: new IsolateSupervisor({ ...each, firstRecycleAfterRuns: firstRecycleAfterRuns(recycle, index, workers), mayBlock: () => mayHoldWorker(this.#members, index) }),
      active: 0,
      retryAt: index === 0 ? RESTART_EVERY_RUNS : 2,
      served: 0,
      lastRunMs: undefined,
      lastEndAt: undefined,
    }))
  }

  /** Pid of the first member's worker, if running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.#members[0]!.supervisor.workerPid
  }

  /** Pids of the workers running now, one per member that has one (for tests and diagnostics). */
  get workerPids(): number[] {
    return this.#members.flatMap(({ supervisor }) => (supervisor.workerPid === undefined ? [] : [supervisor.workerPid]))
  }

  /** Runs routed to each member so far, in member order (for tests and diagnostics). */
  get runsByWorker(): number[] {
    return this.#members.map(({ served }) => served)
  }

  /** Members whose worker is ready for a run now (the routing's and `prewarm`'s first question; also for tests and diagnostics). */
  get readyWorkers(): number {
    return this.#members.filter(({ supervisor }) => supervisor.workerState === 'ready').length
  }

  /** Members whose worker is ready and neither possibly held by a step nor kept from runs after one a limit stopped (`readyAndFree`; for tests and diagnostics). */
  get freeWorkers(): number {
    return this.#members.filter(readyAndFree).length
  }

  /** Starts the first worker now, not waiting (see `IsolateSupervisor.start`). */
  start(): void {
    this.#members[0]!.supervisor.start()
  }

  /**
   * Resolves once a worker is ready: at once when one is, else when the first of those starting
   * is (the first member, started now, when none is). See `IsolateSupervisor.prewarm`.
   * @throws Error when none of them can start (the first one's error), or the group is disposed.
   */
  async prewarm(): Promise<void> {
    if (this.readyWorkers > 0) return
    const starting = this.#starting()
    await this.#firstReady(starting.length > 0 ? starting : this.#members.slice(0, 1))
  }

  /**
   * Runs `request` on one member (see the class comment); the contract of `IsolateSupervisor.run`.
   * @throws as `IsolateSupervisor.run` does.
   */
  async run(request: IsolateRunRequest): Promise<IsolateRunResult> {
    this.#runs++
    // From the first run that overlaps another, or run spreadFromRun, every member has a worker.
    this.#spread ||= this.#runs >= this.#spreadFromRun || this.#members[0]!.active > 0
    const members = this.#spread ? this.#members : this.#members.slice(0, 1)
    for (const member of members) {
      const state = member.supervisor.workerState
      if (state !== 'none' && (state !== 'failed' || this.#runs < member.retryAt)) continue
      member.retryAt = this.#runs + RESTART_EVERY_RUNS
      member.supervisor.retryStart()
    }
    // None ready, or only workers a step may hold (another died meanwhile): the run waits for a
    // starting worker rather than for a held one's step (step-permission.ts).
    const starting = this.#starting()
    if (starting.length > 0 && !this.#members.some(readyAndFree)) await this.#firstReady(starting).catch(() => {})
    const member = this.#pick()
    member.active++
    member.served++
    const startedAt = performance.now()
    try {
      return await member.supervisor.run(request)
    } finally {
      member.active--
      member.lastEndAt = performance.now()
      member.lastRunMs = member.lastEndAt - startedAt
      // The turn goes on from the worker whose run ended last (with runs that overlapped, not
      // necessarily the last chosen).
      this.#last = this.#members.indexOf(member)
    }
  }

  /** Disposes every member (see `IsolateSupervisor.dispose`). Idempotent. */
  dispose(): void {
    for (const { supervisor } of this.#members) supervisor.dispose()
  }

  #starting(): Member[] {
    return this.#members.filter(({ supervisor }) => supervisor.workerState === 'starting')
  }

  /** Resolves once the first of `members` is ready; rejects with the first one's error when none can start. */
  async #firstReady(members: Member[]): Promise<void> {
    await Promise.any(members.map(({ supervisor }) => supervisor.prewarm())).catch((error: AggregateError) => {
      throw error.errors[0]
    })
  }

  #pick(): Member {
    const count = this.#members.length
    let chosen = -1
    const first = staysWithLast(this.#members[this.#last]!, performance.now()) ? 0 : 1
    for (let step = first; step < first + count; step++) {
      const index = (this.#last + step) % count
      if (this.#members[index]!.supervisor.workerState !== 'ready') continue
      if (chosen === -1 || routingLoad(this.#members[index]!) < routingLoad(this.#members[chosen]!)) chosen = index
    }
    if (chosen === -1) chosen = Math.max(0, this.#members.findIndex(({ supervisor }) => supervisor.workerState === 'starting'))
    this.#last = chosen
    return this.#members[chosen]!
  }
}
