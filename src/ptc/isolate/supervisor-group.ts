/**
 * Runs spread over several isolate worker processes (SPEC S9.1; issue 12: "isolates pre-created
 * on a second thread while the current run executes"). Each run needs a fresh isolate, and
 * isolated-vm makes one only synchronously, on the thread that will own it (about 1.1 ms of a
 * worker's main thread, plus disposing the last one). One worker therefore spends as long
 * between two back-to-back runs as raw isolated-vm spends on a whole run; with two, each makes
 * its next isolate while the other serves a run. Each member is a whole {@link IsolateSupervisor}
 * (its own restarts, recycling and watchdogs), so a worker that crashes or is retired costs only
 * its own runs, and the others keep serving while it is replaced.
 */
import type { IsolateRunRequest, IsolateRunResult, IsolateSupervisorOptions } from './isolate-contract.ts'
import { IsolateSupervisor } from './isolate-supervisor.ts'

/** Default of {@link SupervisorGroupOptions.workers} and of `PtcConfig.isolateWorkers`. */
export const DEFAULT_ISOLATE_WORKERS = 2

/** Options of an {@link IsolateSupervisorGroup}: every member's, and how many there are. */
export interface SupervisorGroupOptions extends IsolateSupervisorOptions {
  /** Worker processes runs are spread over, at least 1 (default {@link DEFAULT_ISOLATE_WORKERS}). */
  workers?: number
}

/**
 * The same contract as one {@link IsolateSupervisor} (`run`, `start`, `prewarm`, `dispose`).
 * The first worker starts as one supervisor's does; the others start with the second run, so a
 * host that makes one run (`ptc run`) starts one process. A run goes to the ready worker with
 * the fewest runs in flight, the one after the last chosen on a tie (back-to-back runs alternate);
 * to the first worker when none is ready yet.
 */
export class IsolateSupervisorGroup {
  readonly #members: IsolateSupervisor[]
  #last = 0
  #runs = 0

  /** @throws RangeError when `workers` is not an integer of at least 1. */
  constructor(options: SupervisorGroupOptions = {}) {
    const { workers = DEFAULT_ISOLATE_WORKERS, ...each } = options
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be an integer of at least 1, got ${workers}`)
    this.#members = Array.from({ length: workers }, () => new IsolateSupervisor(each))
  }

  /** Pid of the first member's worker, if running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.#members[0]!.workerPid
  }

  /** Pids of the workers running now, one per member that has one (for tests and diagnostics). */
  get workerPids(): number[] {
    return this.#members.flatMap((member) => (member.workerPid === undefined ? [] : [member.workerPid]))
  }

  /** Members whose worker is ready for a run now (for tests and diagnostics). */
  get readyWorkers(): number {
    return this.#members.filter((member) => member.ready).length
  }

  /** Starts the first worker now, not waiting (see `IsolateSupervisor.start`). */
  start(): void {
    this.#members[0]!.start()
  }

  /**
   * Starts the first worker and resolves once it is ready (see `IsolateSupervisor.prewarm`).
   * @throws Error when it cannot start, or the group is disposed.
   */
  prewarm(): Promise<void> {
    return this.#members[0]!.prewarm()
  }

  /**
   * Runs `request` on one member (see the class comment); the contract of `IsolateSupervisor.run`.
   * @throws as `IsolateSupervisor.run` does.
   */
  run(request: IsolateRunRequest): Promise<IsolateRunResult> {
    // From the second run on, every member has a worker (a no-op for one that has).
    if (++this.#runs >= 2) for (let index = 1; index < this.#members.length; index++) this.#members[index]!.start()
    return this.#pick().run(request)
  }

  /** Disposes every member (see `IsolateSupervisor.dispose`). Idempotent. */
  dispose(): void {
    for (const member of this.#members) member.dispose()
  }

  #pick(): IsolateSupervisor {
    const count = this.#members.length
    let chosen = -1
    for (let step = 1; step <= count; step++) {
      const index = (this.#last + step) % count
      const member = this.#members[index]!
      if (!member.ready) continue
      if (chosen === -1 || member.activeRuns < this.#members[chosen]!.activeRuns) chosen = index
    }
    this.#last = chosen === -1 ? 0 : chosen
    return this.#members[this.#last]!
  }
}
