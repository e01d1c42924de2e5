/**
 * The configuration of PTC mode (SPEC S9): `PtcConfig`, given once to the `Ptc` service
 * (`createHost({ ptc })`), and `RunOptions`, given to each `ctx.ptc.run`.
 */
import type { Tool } from '../tools/define-tool.ts'
import type { RunLimits } from './isolate/run-limits.ts'

/** The default of {@link PtcConfig.maxWallClockMs}: the longest run a caller may ask for, in ms. */
export const DEFAULT_MAX_WALL_CLOCK_MS = 300_000

/** Deployment configuration of PTC mode. */
export interface PtcConfig {
  /** Default limits of every run (see `RunLimits`: ms, MB, counts, bytes). */
  limits?: Partial<RunLimits>
  /** Upper bound in ms for a per-run `timeoutMs` a caller (or model) may ask for. Default {@link DEFAULT_MAX_WALL_CLOCK_MS}. */
  maxWallClockMs?: number
  /** Type-check scripts before running (default true). */
  typecheck?: boolean
  /**
   * Scripts checked and compiled at once, each in its own checker worker (a child process, or a
   * worker thread with `isolation: 'inline'`; about 100 MB each once warm). Default 2.
   */
  checkers?: number
  /** Isolates created ahead of time (default 2). */
  poolSize?: number
  /**
   * Runs the isolate worker process serves before a fresh one replaces it (default 5,000,
   * `DEFAULT_RECYCLE_AFTER_RUNS`; 0: never). Each disposed isolate leaves native memory in the
   * process that made it (0.4-0.8 KB, isolated-vm's), so this bounds the worker's memory; the
   * worker's own heap is collected every 500 runs; the replacement starts while
   * the old worker serves, so no run waits for it. `isolation: 'process'` only.
   */
  recycleWorkerAfterRuns?: number
  /**
   * Isolate worker processes runs are spread over (`isolation: 'process'`; default 2,
   * `DEFAULT_ISOLATE_WORKERS`; at least 1). Every run needs a fresh isolate, which a worker makes
   * on its own main thread between runs (about 1.1 ms); with two, short runs back to back take
   * turns, one making its next isolate while the other serves a run (issue 12: a cold run 1.16x ->
   * 0.83x raw isolated-vm), and runs in flight together go to different workers. After a long run
   * or a pause, the next run stays on the worker that served the last one, whose code is warm
   * (`STICK_AFTER_MS`, 20 ms). The others start with the first run that arrives while the first
   * worker holds one, else with the second run (`DEFAULT_SPREAD_FROM_RUN`), so a host that makes
   * one run starts one; each costs about 70-90 MB. At most 16 (`MAX_ISOLATE_WORKERS`).
   */
  isolateWorkers?: number
  /**
   * Longest the start of a checker or of the isolate worker may take, in ms (default 60,000,
   * `DEFAULT_START_TIMEOUT_MS`). Not a run's deadline (a cold start is not charged to a run): a
   * safety limit for a start that truly hangs, after which that start fails with "could not
   * start … not ready within N ms" and the tail of the worker's stderr.
   */
  startTimeoutMs?: number
  /**
   * Where isolates run (default `'process'`). `'process'`: in a supervised worker process
   * (`IsolateSupervisor`), so nothing a script does to isolated-vm (a catastrophic out-of-memory,
   * an isolate thread that never ends) can hang or take down the host; costs one IPC round trip
   * per tool call and a worker start-up (overlapped with the host's start, see `prestart`, and
   * redone after a worker is recycled). `'inline'`: isolates in this process (`runInIsolate`),
   * for embedding without child processes and for benchmarks; a catastrophic isolate failure can
   * then leave the host unable to exit (see `onIsolateCatastrophe`).
   */
  isolation?: 'process' | 'inline'
  /**
   * Start the isolate worker process (`isolation: 'process'`) with the service, default true
   * (`createHost`: before its plugins; issue 12). `false`: with the first run (hosts that run none).
   */
  prestart?: boolean
  /** Width of the rolling pool for parallel calls from one script (default 16, `DEFAULT_CONCURRENCY`; `limits.maxCallsInFlight` also bounds it). */
  concurrency?: number
  /** Largest script accepted, in bytes (UTF-8); larger ones are refused before type-checking. Default 512 KiB. */
  maxScriptBytes?: number
  /** Which registered tools a script may call; `run_code` itself never. Default: all. */
  visible?: (tool: Tool) => boolean
}

/** Per-run options. */
export interface RunOptions {
  typecheck?: boolean
  /** Wall-clock deadline of this run in ms (capped by `maxWallClockMs`). */
  timeoutMs?: number
  memoryMb?: number
  signal?: AbortSignal
  agent?: string
  /** The token and id of the `run_code` call this run belongs to (S9.5). */
  parentToken?: symbol
  parentCallId?: string
  /**
   * Called as `signal` aborts during the script's run, with the sentences naming the calls in
   * flight then (`stoppedCallsSentences`), for a caller that answers the cancel itself instead of
   * waiting for the run's `cancelled` value (the pipeline, for `run_code`); not called when none was.
   */
  onCancelNote?: (sentences: string) => void
}
