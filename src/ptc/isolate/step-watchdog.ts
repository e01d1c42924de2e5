/**
 * The isolate worker's watchdog for steps it runs on its main thread (issue 12,
 * `IsolateRunRequest.stepHere`). While such a step runs, nothing else in the worker runs on that
 * thread, and nothing there can stop what V8 itself cannot interrupt. This thread looks, every
 * {@link POLL_MS} while a step is held (a flag in shared memory: the main thread pays a few atomic
 * stores a step, no wake-up), for three things, and ends the process on any of them:
 * - Resident memory past the run's bound. One runaway native allocation
 *   (`new Array(2 ** 28).fill(1.5)`) does not stop when isolated-vm asks V8 to terminate it at
 *   the memory limit: the worker grew to 1.4 GB and crashed with SIGSEGV (a package trial, round
 *   25). The thread writes a `catastrophe` message straight to the channel's socket (the main
 *   thread is not writing: it is the script's); the host ends the run `memory` and replaces the
 *   worker, as after any catastrophe (`isolate-supervisor.ts`).
 * - The step still running {@link STEP_OVERRUN_GRACE_MS} past its timeout (the run's CPU time or
 *   wall clock left): one native operation V8 cannot interrupt (`fill` or `sort` of a huge array)
 *   ignores the timeout, and isolated-vm ends the process with SIGSEGV 5 s later ("Script failed
 *   to terminate"; a package trial, round 30, saw the run end as a crash at the CPU limit + 5 s).
 *   The thread writes a `step-overrun` message and the host ends the run `timeout` at its limit.
 * - The host gone (its process id no longer this process's parent, even SIGKILLed): the main
 *   thread would only see its channel close after the step, which could be the CPU limit later.
 */
import { Worker } from 'node:worker_threads'
import type { HeldStepTimeout } from './isolate-contract.ts'

/** How often the thread looks, in ms. */
export const POLL_MS = 50

/**
 * Resident memory in MB a held step may add past the RSS at its run's first held step beyond the
 * run's `memoryMb`: room for isolated-vm's own margin over the heap limit and for one large string
 * or buffer (the README's memory limit), so only a step that the limit could not stop is ended
 * here. Not room for a flat string of V8's largest length (512 MB), which isolated-vm's thread
 * may let through: a runaway allocation grows the worker about 100 MB a second on a loaded
 * machine (page faults), so each 100 MB more here is a second more before it is ended.
 */
export const STEP_RSS_SLACK_MB = 256

/** How long past a held step's timeout (ms) V8 gets to stop it before the process is ended. */
export const STEP_OVERRUN_GRACE_MS = 500

/** Indices of the shared `Int32Array`, then of the `BigInt64Array` after it. */
const HELD = 0 // 1 while a step is held
const RSS_BOUND_MB = 1
const BY_CPU = 2 // 1 when the deadline is the CPU time left, 0 the wall clock
const RUN_ID = 3 // the held step's run (`WorkerRunMessage.runId`, a number as text)
const DEADLINE = 0 // `process.hrtime.bigint()` (monotonic, the same in every thread) past which the held step has overrun
/** No deadline. */
const NEVER = 2n ** 63n - 1n

/** The thread's code: CommonJS, evaluated (no file of its own, so the package's bundle needs none). */
const THREAD = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const flags = new Int32Array(workerData.flags, 0, 4)
const deadline = new BigInt64Array(workerData.flags, 16, 1)
function end(message) {
  try {
    writeSync(workerData.fd, JSON.stringify(message) + '\\n')
  } catch {}
  process.kill(process.pid, 'SIGKILL')
}
setInterval(() => {
  if (Atomics.load(flags, ${HELD}) === 0) return
  if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL')
  const limitMb = Atomics.load(flags, ${RSS_BOUND_MB})
  if (process.memoryUsage.rss() / 1048576 > limitMb) end({ type: 'catastrophe', message: 'the isolate worker process passed ' + limitMb + ' MB of memory in code that runs without pausing for a tool call, and was stopped' })
  if (process.hrtime.bigint() > Atomics.load(deadline, ${DEADLINE})) end({ type: 'step-overrun', runId: String(Atomics.load(flags, ${RUN_ID})), byCpu: Atomics.load(flags, ${BY_CPU}) === 1 })
}, ${POLL_MS})
`

/** The watchdog of one worker process; see the file comment. */
export class StepWatchdog {
  readonly #shared = new SharedArrayBuffer(24)
  readonly #flags = new Int32Array(this.#shared, 0, 4)
  readonly #deadline = new BigInt64Array(this.#shared, 16, 1)
  /** The host's process id, taken when the worker starts: the thread starts with a first held step, which may come after the host has gone. */
  readonly #parent = process.ppid
  readonly #fd: number
  #thread: Worker | undefined

  /** `fd`: the host channel's socket, where the thread's messages go. The thread starts on the first {@link watch}. */
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
   * A step of run `runId` starts (`true`, with its `timeout`) or ends (`false`) on the main
   * thread. The run's held steps may raise the process's RSS by its `memoryMb` +
   * {@link STEP_RSS_SLACK_MB} above what it was at the first; a step may run
   * {@link STEP_OVERRUN_GRACE_MS} past its timeout, by the monotonic clock.
   */
  watch(held: boolean, timeout?: HeldStepTimeout, runId = '0'): void {
    this.#thread ??= this.#start()
    if (held && this.#runMemoryMb !== undefined) {
      Atomics.store(this.#flags, RSS_BOUND_MB, Math.ceil(process.memoryUsage.rss() / 1048576) + this.#runMemoryMb + STEP_RSS_SLACK_MB)
      this.#runMemoryMb = undefined
    }
    if (held) {
      const deadline = timeout === undefined ? NEVER : process.hrtime.bigint() + BigInt(Math.ceil(timeout.timeoutMs + STEP_OVERRUN_GRACE_MS)) * 1_000_000n
      Atomics.store(this.#deadline, DEADLINE, deadline)
      Atomics.store(this.#flags, BY_CPU, timeout?.byCpu === true ? 1 : 0)
      Atomics.store(this.#flags, RUN_ID, Number(runId) | 0)
    }
    Atomics.store(this.#flags, HELD, held ? 1 : 0)
  }

  #start(): Worker {
    const thread = new Worker(THREAD, { eval: true, workerData: { flags: this.#shared, fd: this.#fd, parent: this.#parent }, resourceLimits: { maxOldGenerationSizeMb: 16 } })
    thread.unref()
    thread.on('error', () => {}) // Only a safety net: the worker keeps serving without it.
    return thread
  }
}
