/**
 * Finds an isolate's thread still running after its run was stopped (SPEC S9.7; a package trial,
 * round 31). V8 cannot interrupt one native operation (`new Array(2 ** 28).fill(1.5)`, a sort of
 * millions of elements). When a limit or a cancel stops a run inside one on isolated-vm's own
 * thread, the run is answered on time and its isolate disposed, but the thread goes on until the
 * operation ends: a worker grew to 1.4 GB for a 128 MB run and kept a core busy for 10–15 s, while
 * it took new runs. After such a run the isolate worker watches its isolate threads (neither its
 * main thread nor V8's helpers; it prepares its isolates on its main thread) while it has no run:
 * one that keeps using the CPU then runs such an operation, and the worker asks to be replaced.
 * Linux only (`/proc`); elsewhere nothing is watched, as before.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** How often the threads are looked at, in ms. */
export const STUCK_POLL_MS = 250

/** Share of a core an isolate thread uses in two polls in a row, with no run, to count as stuck. */
export const STUCK_SHARE = 0.25

/** Polls after a run before the watch gives up (the operation ended, or the worker is busy with runs). */
const MAX_POLLS = 40

/** CPU ms so far of this process's threads that may run isolates, by thread id; empty without `/proc`. */
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
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('V8Worker')) continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      cpu.set(task, (Number(fields[11]) + Number(fields[12])) * 10) // utime + stime, 10 ms ticks
    } catch {
      // The thread ended while we looked.
    }
  }
  return cpu
}

/** The watch of one worker process; see the file comment. */
export class StuckIsolateWatch {
  readonly #idle: () => boolean
  readonly #onStuck: () => void
  #timer: NodeJS.Timeout | undefined
  #polls = 0
  #busyPolls = 0
  #last: Map<string, number> | undefined

  /** `idle`: whether the worker has no run now; `onStuck`: called once a thread is found. */
  constructor(idle: () => boolean, onStuck: () => void) {
    this.#idle = idle
    this.#onStuck = onStuck
  }

  /** A limit or a cancel stopped a run: watch from now (again, if already watching). Never throws. */
  watch(): void {
    this.#polls = this.#busyPolls = 0
    this.#last = undefined
    this.#timer ??= setInterval(() => this.#poll(), STUCK_POLL_MS).unref()
  }

  #poll(): void {
    const now = this.#idle() ? isolateThreadsCpu() : undefined
    const last = this.#last
    this.#last = now
    let busy = false
    for (const [thread, ms] of now ?? []) busy ||= last !== undefined && ms - (last.get(thread) ?? ms) >= STUCK_SHARE * STUCK_POLL_MS
    this.#busyPolls = busy ? this.#busyPolls + 1 : 0
    if (this.#busyPolls >= 2) this.#onStuck()
    if (this.#busyPolls >= 2 || ++this.#polls >= MAX_POLLS) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }
}
