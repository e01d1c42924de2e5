/**
 * Finds an isolate's thread still running after its run ended (SPEC S9.7; a package trial, round
 * 31). V8 cannot interrupt one native operation (`new Array(2 ** 28).fill(1.5)`, a sort of
 * millions of elements). When a limit or a cancel stops a run inside one on isolated-vm's own
 * thread, or a script returns while a callback it started runs one, the run is answered and its
 * isolate disposed, but the thread goes on until the operation ends: a worker grew to 1.4 GB for a
 * 128 MB run and kept a core busy for 10–15 s, while it took new runs.
 *
 * After such a run the isolate worker watches two things, and asks to be replaced on either:
 * - its resident memory while it has no run, against what it was when the run ended plus the
 *   run's `memoryMb` and {@link STUCK_RSS_SLACK_MB} (with a run on it the worker may grow by that
 *   run's own bound: a clean-clone test run saw a healthy run ended so);
 * - its isolate threads' CPU (isolated-vm's pool threads, named `MainThread` like the process's own;
 *   not V8's helpers, libuv's or the step watchdog's), in windows with no run at any moment: the
 *   worker prepares its isolates on its main thread, so a pool thread that keeps
 *   {@link STUCK_SHARE} of a core or more over {@link STUCK_BUSY_POLLS} such windows in a row runs
 *   such an operation (a tenth: on a loaded machine, a full test suite beside it, it got a quarter
 *   of a core or less), and the worker is retired.
 * A CPU-bound operation is found once the worker has had no run for about a second; the CPU watch
 * ends after {@link STUCK_QUIET_POLLS} such windows without finding one, the memory watch after
 * {@link STUCK_MAX_POLLS} polls (an operation that grows slowly on a loaded machine passed 1 GB
 * only after several seconds).
 * Linux only (`/proc`); elsewhere nothing is watched.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** How often the threads are looked at, in ms. */
export const STUCK_POLL_MS = 250

/** Share of a core a pool thread uses in a window with no run, {@link STUCK_BUSY_POLLS} windows in a row, to count as stuck. */
export const STUCK_SHARE = 0.1

/** Windows in a row with no run in which a pool thread used {@link STUCK_SHARE} of a core. */
export const STUCK_BUSY_POLLS = 3

/** MB of resident memory past the ended run's bound (RSS then + its `memoryMb`) that ends the worker. */
export const STUCK_RSS_SLACK_MB = 256

/** Windows with no run the CPU watch looks at before it ends (10 s). */
export const STUCK_QUIET_POLLS = 40

/** Polls before the memory watch ends (60 s). */
export const STUCK_MAX_POLLS = 240

/** Linux's clock tick (`CLK_TCK`) in ms: the unit of `/proc/<pid>/task/<tid>/stat`'s CPU times. */
const TICK_MS = 10

/**
 * Whether a run that ended so may have left its code running in the worker: a limit or a cancel
 * stopped it (any status but `ok` and `error`), or a callback of it still ran when the script ended
 * (a `kept-running` warning). After such a run the worker watches (see the file comment), and its
 * host keeps new runs away from it a moment (`SupervisedWorker.suspectUntil`).
 */
export function mayHaveLeftCode(result: { readonly status: string; readonly warnings?: readonly { readonly kind: string }[] | undefined }): boolean {
  return (result.status !== 'ok' && result.status !== 'error') || result.warnings?.some(({ kind }) => kind === 'kept-running') === true
}

/** CPU ms so far of this process's isolate threads (named `MainThread`, not the main thread), by thread id; empty without `/proc`. */
export function isolateThreadsCpu(): Map<string, number> {
  const cpu = new Map<string, number>()
  let tasks: string[]
  try {
    tasks = readdirSync('/proc/self/task')
  } catch {
    return cpu
  }
  for (const task of tasks) {
    if (Number(task) === process.pid) continue
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'MainThread') continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      cpu.set(task, (Number(fields[11]) + Number(fields[12])) * TICK_MS) // utime + stime
    } catch {
      // The thread ended while we looked.
    }
  }
  return cpu
}

/** What the watch reads of its worker: `runs`, how many it serves now; `started`, how many it has started so far. */
export interface StuckWatchWorker {
  readonly runs: number
  readonly started: number
}

/** The watch of one worker process; see the file comment. */
export class StuckIsolateWatch {
  readonly #worker: StuckWatchWorker
  readonly #onStuck: (reason: string) => void
  #timer: NodeJS.Timeout | undefined
  #polls = 0
  #quietPolls = 0
  /** Whether the CPU watch still looks (it ends after {@link STUCK_QUIET_POLLS} windows with no run). */
  #cpu = true
  #busyPolls = 0
  #rssBoundMb = 0
  /** The last poll's reading, taken with no run on the worker: when, its count of runs started, and the threads' CPU. */
  #last: { at: number; started: number; cpu: Map<string, number> } | undefined

  /** `onStuck` is called once, with why the worker is to be replaced. */
  constructor(worker: StuckWatchWorker, onStuck: (reason: string) => void) {
    this.#worker = worker
    this.#onStuck = onStuck
  }

  /** A run whose isolate may still be running has ended (its `memoryMb`): watch from now (again, if already watching). Never throws. */
  watch(memoryMb: number): void {
    this.#polls = this.#quietPolls = this.#busyPolls = 0
    this.#cpu = true
    this.#last = undefined
    this.#rssBoundMb = process.memoryUsage.rss() / 1048576 + memoryMb + STUCK_RSS_SLACK_MB
    this.#timer ??= setInterval(() => this.#poll(), STUCK_POLL_MS).unref()
  }

  #poll(): void {
    const { runs, started } = this.#worker
    if (runs === 0 && process.memoryUsage.rss() / 1048576 > this.#rssBoundMb) return this.#end(`it passed ${Math.round(this.#rssBoundMb)} MB of memory after a run ended, in an operation V8 could not interrupt`)
    if (++this.#polls >= STUCK_MAX_POLLS) return this.#stop()
    if (!this.#cpu) return
    const last = this.#last
    this.#last = runs === 0 ? { at: performance.now(), started, cpu: isolateThreadsCpu() } : undefined
    // A window counts only when the worker had no run at any moment of it: none then, none now, none started between.
    if (last !== undefined && this.#last !== undefined && last.started === started) {
      this.#quietPolls++
      const windowMs = this.#last.at - last.at
      let busy = false
      for (const [thread, ms] of this.#last.cpu) busy ||= ms - (last.cpu.get(thread) ?? ms) >= STUCK_SHARE * windowMs
      this.#busyPolls = busy ? this.#busyPolls + 1 : 0
      if (this.#busyPolls >= STUCK_BUSY_POLLS) return this.#end('a run that ended left its isolate running an operation V8 could not interrupt')
    } else {
      this.#busyPolls = 0
    }
    if (this.#quietPolls >= STUCK_QUIET_POLLS) this.#cpu = false
  }

  #end(reason: string): void {
    this.#stop()
    this.#onStuck(reason)
  }

  #stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }
}
