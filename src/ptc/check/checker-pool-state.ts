/**
 * The state `CheckerPool` keeps per checker, per script and per waiting caller (types only).
 */
import type { WorkerChannel } from '../worker-channel.ts'
import type { CheckerParentMessage, PrepareOutcome } from './checker-contract.ts'

/** One script in a checker; `finish` settles it once. */
export interface Job {
  readonly id: number
  finish(outcome: PrepareOutcome, keepChecker: boolean): void
}

/** One checker worker. */
export interface Checker {
  readonly channel: WorkerChannel<CheckerParentMessage>
  /** `starting` until ready and warmed up (see `CheckerPoolOptions.warmup`). */
  state: 'starting' | 'idle' | 'busy' | 'dead'
  readonly ready: Promise<void>
  /** Declaration hashes the checker holds, oldest first (mirrors its own eviction). */
  readonly held: Map<string, true>
  job: Job | undefined
  /** Why its start failed when the pool itself stopped it (a failed warm-up), for the error. */
  startFailure?: string
  /** Set once it said `ready` (a second one is a checker gone wrong). */
  announced?: boolean
  /** Set once the pool killed it: what it still sends is dropped. */
  stopping?: boolean
  /** The group (`PrepareOptions.group`) of the script it is checking, while busy. */
  group?: string | undefined
}

/** A caller waiting for a free checker. */
export interface Waiter {
  /** The caller's `PrepareOptions.group`. */
  readonly group: string | undefined
  resolve(taken: Checker | 'cancelled' | 'timeout'): void
  reject(error: Error): void
  /** The script's deadline starts running (at `now`, unless it already runs). */
  startClock(now: number): void
}

/** When a script's deadline started (`performance.now()`); unset while waiting for the first checker. */
export interface Clock {
  startedAt: number | undefined
}

/** The checkers of `checkers` the pool has not stopped (a stopped one stays in the pool until its exit is seen). */
export function liveCheckers(checkers: ReadonlySet<Checker>): Checker[] {
  return [...checkers].filter((checker) => checker.stopping !== true)
}
