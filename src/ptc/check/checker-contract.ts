/**
 * The messages between the host's {@link CheckerPool} (`checker-pool.ts`) and a checker worker
 * (`checker-worker-entry.ts`, a child process or a worker thread). Types only: both sides import
 * it with `import type`. A checker type-checks and compiles one script at a time (SPEC S9.1), off
 * the host's event loop, so the host can stop it at the run's deadline by killing it. The last
 * two types are the pool's answer to its callers.
 */
import type { Diagnostic } from '../compile-diagnostics.ts'
import type { CompiledScript } from '../compile.ts'

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

/** Host → checker messages. */
export type CheckerParentMessage = CheckerPrepareMessage

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
export type CheckerChildMessage = CheckerReadyMessage | CheckerPreparedMessage | CheckerFailureMessage

/** What a script's check and compile came to; see `CheckerPool.prepare`. */
export type PrepareOutcome =
  | { kind: 'prepared'; prepared: PreparedScript }
  /** The deadline passed first; the checker was killed. */
  | { kind: 'timeout' }
  /** The caller's signal aborted first; the checker was killed. */
  | { kind: 'cancelled' }
  /** The checker died or failed while on this script (out of memory, killed from outside). */
  | { kind: 'crashed'; message: string }

/** `CheckerPool.prepare`'s answer. Times in ms on the `performance.now()` clock. */
export interface PrepareResult {
  outcome: PrepareOutcome
  /** When a ready checker took the script: where the script's deadline started. */
  startedAt: number
  /** Time from `startedAt` to the outcome. */
  checkMs: number
}
