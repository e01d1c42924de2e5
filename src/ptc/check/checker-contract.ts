/**
 * The messages between the host's {@link CheckerPool} (`checker-pool.ts`) and a checker worker
 * (`checker-worker-entry.ts`, a child process or a worker thread). Types only: both sides import
 * it with `import type`. A checker type-checks and compiles one script at a time (SPEC S9.1), off
 * the host's event loop, so the host can stop it at the run's deadline by killing it. The types
 * after the messages are the pool's own options and answers.
 */
import type { Diagnostic } from '../compile-diagnostics.ts'
import type { CompiledScript } from '../compile.ts'
import type { WorkerKind } from '../worker-channel.ts'

/** What to do with one script. */
export interface PrepareRequest {
  /** The user's TypeScript (the body of an async function). */
  code: string
  /** Type-check against the declarations first (`ptc run --no-typecheck` / `typecheck: false` skip it). */
  typecheck: boolean
  /** Compile to the isolate's JavaScript after a clean check (`ptc check` only checks). */
  compile: boolean
}

/**
 * Host → checker: prepare one script. `declarations` is sent only when the checker has not seen
 * `declarationsHash` yet (declarations of a large tool set are tens of KB; a warm checker keeps
 * the last ones it was sent, keyed by hash).
 */
export interface CheckerPrepareMessage {
  type: 'prepare'
  id: number
  request: PrepareRequest
  declarationsHash: string
  declarations?: string
}

/** Checker thread → host: transform this wrapped script with the host's esbuild (`host-transform.ts`). */
export interface CheckerTransformMessage {
  type: 'transform'
  id: number
  source: string
}

/** Host → checker thread: the answer to `transform` `id`: the JavaScript and map, or esbuild's failure. */
export interface CheckerTransformedMessage {
  type: 'transformed'
  id: number
  code?: string
  map?: string
  failure?: { message: string; errors?: unknown[] }
}

/** Host → checker messages. */
export type CheckerParentMessage = CheckerPrepareMessage | CheckerTransformedMessage

/**
 * How one script came out. `type-error`: the checker's diagnostics (errors and warnings);
 * `syntax-error`: the compile step refused it (syntax, runtime imports), `message` is the
 * rendered diagnostics; `checked`: no type errors and nothing compiled (`compile: false`);
 * `compiled`: ready to run.
 */
export type PreparedScript =
  | { kind: 'type-error'; diagnostics: Diagnostic[] }
  | { kind: 'syntax-error'; message: string; diagnostics: Diagnostic[] }
  | { kind: 'checked'; diagnostics: Diagnostic[] }
  | { kind: 'compiled'; compiled: CompiledScript; diagnostics: Diagnostic[] }

/** Checker → host: TypeScript is loaded and the lib files are parsed; it takes scripts. */
export interface CheckerReadyMessage {
  type: 'ready'
}

/** Checker → host: the outcome of one `prepare`. */
export interface CheckerPreparedMessage {
  type: 'prepared'
  id: number
  prepared: PreparedScript
}

/**
 * Checker → host: `prepare` failed for a reason that is not the script's (the declarations it
 * was asked to use are unknown to it, esbuild failed to start).
 */
export interface CheckerFailureMessage {
  type: 'failure'
  id: number
  error: { name: string; message: string }
}

/** Checker → host messages. */
export type CheckerChildMessage = CheckerReadyMessage | CheckerPreparedMessage | CheckerFailureMessage | CheckerTransformMessage

/** What a script's check and compile came to; see `CheckerPool.prepare`. */
export type PrepareOutcome =
  | { kind: 'prepared'; prepared: PreparedScript }
  /** The deadline passed first; the checker was killed. */
  /** `waiting`: the deadline passed before a checker was free (all busy with other scripts). */
  | { kind: 'timeout'; waiting?: true }
  /** The caller's signal aborted first; the checker was killed. */
  | { kind: 'cancelled' }
  /**
   * The checker died or failed while on this script (out of memory, killed from outside);
   * `message` says how: `signal SIGKILL`, `exit code 1`, `it could not be reached`, `it sent a
   * message that could not be read (…), so it was stopped`, or its error (`RangeError: …`).
   */
  | { kind: 'crashed'; message: string }

/** `CheckerPool.prepare`'s answer. Times in ms on the `performance.now()` clock. */
export interface PrepareResult {
  outcome: PrepareOutcome
  /** Where the script's deadline started: the call, or the end of the pool's cold start. */
  startedAt: number
  /** Time from `startedAt` to the outcome. */
  checkMs: number
}

/** Options of a `CheckerPool`. */
export interface CheckerPoolOptions {
  /** Child processes (default) or worker threads of this process. */
  kind?: WorkerKind
  /** Most checkers at once, so most scripts checked at once (default 2). Started on demand. */
  size?: number
  /** Heap limit of one checker in MB (default 1024); past it the check ends `crashed`. */
  memoryMb?: number
  /** The checker's main module (default `checker-worker-entry.ts` next to this file). */
  entry?: string
  /**
   * Longest a checker's start (warm-up included) may take, in ms, before it fails as "could not
   * start" (default `DEFAULT_START_TIMEOUT_MS`, 60 s): a safety limit for a hung start.
   */
  startTimeoutMs?: number
  /**
   * The declarations most scripts are checked against (`Ptc.declarations()`). When given, a new
   * checker checks one small script against them before it counts as ready, so parsing them is
   * start-up work too, not the first script's.
   */
  warmup?: () => Promise<string | undefined>
  /**
   * Asked at every start of a checker process: a V8 start-up snapshot to start it from, with
   * TypeScript already warm (`checker-snapshot.ts`), or `undefined` for the module entry. A
   * checker that cannot start from it is replaced by one from the module entry, and
   * `snapshotFailed` is told; the pool then never asks again. Ignored for threads.
   */
  snapshot?: () => string | undefined
  /** Told the blob `snapshot` gave when a checker could not start from it. */
  snapshotFailed?: (blob: string) => void
}

/** Per-script options of `CheckerPool.prepare`. */
export interface PrepareOptions {
  /** The tool declarations the script is checked against (`Ptc.declarations()`). */
  declarations: string
  /** Deadline in ms, counted from the call (see `CheckerPool.prepare`). */
  timeoutMs: number
  /** Aborting it ends the check `cancelled` (the checker is killed) or stops the wait for one. */
  signal?: AbortSignal
  /**
   * Who the script is for (the run's agent: an MCP session). One group never holds all the
   * checkers of a pool of two or more, so another's script is never left waiting behind a single
   * caller's heavy checks.
   */
  group?: string
}
