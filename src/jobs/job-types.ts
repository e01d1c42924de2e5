/**
 * Contracts of background jobs (SPEC S10), in one types-only module that the `ctx.jobs` service,
 * the `job_*` tools, `bash`'s background branch and the MCP server all import.
 */

/**
 * Where a job is in its life (S10.5). `running` until its `run` settles; then `exited` (it
 * returned), `failed` (it threw without being killed) or `killed` (`job_kill`, its owner's
 * dispose, its plugin's dispose or the service's teardown stopped it; set as soon as the kill is
 * requested, while the producer may still be winding down).
 */
export type JobStatus = 'running' | 'exited' | 'killed' | 'failed'

/** What a job's `run` resolves to; both fields optional (a non-process job has neither). */
export interface JobOutcome {
  /** The process exit code, or `null` when it died by a signal. */
  exitCode?: number | null
  /** The terminating signal (`'SIGTERM'`...), or `null`. */
  signal?: string | null
}

/** What the producer of a job gets (S10.3): the job's own signal, never the starting call's. */
export interface JobRunContext {
  /** The published id. */
  readonly jobId: string
  /** Aborted only by `kill`, the owner's dispose, the starting plugin's dispose or teardown (S10.5). */
  readonly signal: AbortSignal
  /** Append output (stdout and stderr interleaved as they come) to the job's ring; ignored once the job has ended. Never throws. */
  write(chunk: string): void
}

/** Input of `ctx.jobs.start` (S10.1). */
export interface JobStartOptions {
  /** What kind of work, e.g. `'bash'`; becomes the id prefix (`bash-3`). `[a-z][a-z0-9_]*`, at most 32 characters. */
  kind: string
  /** One line for humans and the model, e.g. the command. Cut to 200 characters. */
  label: string
  /** The agent (session) that owns the job; `exec.agent`. Only that owner can list, read or kill it. */
  owner: string | undefined
  /** The producer. It must honour `signal`; its rejection marks the job `failed` (unless killed). */
  run: (context: JobRunContext) => Promise<JobOutcome | void> | JobOutcome | void
}

/** A published job's handle: the canonical value a background branch returns (S10.6). */
export interface JobHandle {
  readonly jobId: string
}

/** A snapshot of one job, as `list` and `kill` report it. Byte counts are UTF-8 bytes. */
export interface JobInfo {
  readonly jobId: string
  readonly kind: string
  readonly label: string
  readonly status: JobStatus
  /** Exit code once the producer ended with one; `null` while running or when there is none. */
  readonly exitCode: number | null
  /** Terminating signal once known; `null` otherwise. */
  readonly signal: string | null
  /** The producer's error message when `status` is `failed`. */
  readonly error?: string
  /** Every byte the job ever wrote. */
  readonly totalBytes: number
  /** Bytes that fell out of the ring and can no longer be read. */
  readonly droppedBytes: number
}

/**
 * What `read` returns: the output between a cursor and the end, plus the job's state. Offsets
 * are in total-bytes coordinates (byte 0 is the first byte the job ever wrote), so a cursor stays
 * valid while the ring drops old output.
 */
export interface JobRead extends JobInfo {
  /** Output from `offset` to `nextOffset`, UTF-8 decoded. */
  readonly output: string
  /** Where `output` starts; larger than the asked cursor when the bytes in between were dropped. */
  readonly offset: number
  /** The cursor to pass next time. */
  readonly nextOffset: number
  /** Bytes between the asked cursor and `offset` that were dropped before this read. */
  readonly missedBytes: number
}
