/**
 * The isolate worker's watchdog for steps it runs on its main thread (issue 12,
 * `IsolateRunRequest.stepHere`). While such a step runs, nothing else in the worker runs on that
 * thread, and one runaway native allocation (`new Array(2 ** 28).fill(1.5)`) does not stop when
 * isolated-vm asks V8 to terminate it at the memory limit: the worker grew to 1.4 GB and crashed
 * with SIGSEGV (a package trial, round 25). This thread watches the process's resident memory
 * while a step is held and, past the run's bound, tells the host with a `catastrophe` message
 * written straight to the channel's socket (the main thread is not writing: it is the script's)
 * and ends the process; the host then ends the run `memory` and replaces the worker, as after any
 * catastrophe (`isolate-supervisor.ts`). It polls every {@link POLL_MS}: a flag in shared memory
 * says whether a step is held, so the main thread pays an atomic store a step, no wake-up.
 */
import { Worker } from 'node:worker_threads'

/** How often the thread looks, in ms. */
export const POLL_MS = 50

/**
 * Resident memory in MB a held step may add past the RSS at its run's first held step beyond the run's `memoryMb`:
 * room for isolated-vm's own margin over the heap limit and for one large string or buffer (the
 * README's memory limit), so only a step that the limit could not stop is ended here.
 */
export const STEP_RSS_SLACK_MB = 256

/** The thread's code: CommonJS, evaluated (no file of its own, so the package's bundle needs none). */
const THREAD = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const flags = new Int32Array(workerData.flags)
setInterval(() => {
  if (Atomics.load(flags, 0) === 0) return
  const rssMb = process.memoryUsage.rss() / 1048576
  const limitMb = Atomics.load(flags, 1)
  if (rssMb <= limitMb) return
  const message = 'the isolate worker process passed ' + limitMb + ' MB of memory in code that runs without pausing for a tool call, and was stopped'
  try {
    writeSync(workerData.fd, JSON.stringify({ type: 'catastrophe', message }) + '\\n')
  } catch {}
  process.kill(process.pid, 'SIGKILL')
}, ${POLL_MS})
`

/** The watchdog of one worker process; see the file comment. */
export class StepWatchdog {
  readonly #flags = new Int32Array(new SharedArrayBuffer(8))
  readonly #fd: number
  #thread: Worker | undefined

  /** `fd`: the host channel's socket, where the `catastrophe` message goes. The thread starts on the first {@link watch}. */
  constructor(fd: number) {
    this.#fd = fd
  }

  /** The `memoryMb` of the run starting; `undefined` once its bound is set (by its first held step). */
  #runMemoryMb: number | undefined

  /** A run starts. Its bound is set by its first held step, so a run with none never reads the RSS (a `/proc` read). */
  runStarts(memoryMb: number): void {
    this.#runMemoryMb = memoryMb
  }

  /**
   * A step starts (`true`) or ends (`false`) on the main thread. The run's held steps may raise
   * the process's RSS by its `memoryMb` + {@link STEP_RSS_SLACK_MB} above what it was at the first.
   */
  watch(held: boolean): void {
    this.#thread ??= this.#start()
    if (held && this.#runMemoryMb !== undefined) {
      Atomics.store(this.#flags, 1, Math.ceil(process.memoryUsage.rss() / 1048576) + this.#runMemoryMb + STEP_RSS_SLACK_MB)
      this.#runMemoryMb = undefined
    }
    Atomics.store(this.#flags, 0, held ? 1 : 0)
  }

  #start(): Worker {
    const thread = new Worker(THREAD, { eval: true, workerData: { flags: this.#flags.buffer, fd: this.#fd }, resourceLimits: { maxOldGenerationSizeMb: 16 } })
    thread.unref()
    thread.on('error', () => {}) // Only a safety net: the worker keeps serving without it.
    return thread
  }
}
