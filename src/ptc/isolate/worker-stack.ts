/**
 * The isolate worker's main-thread stack (issue 12). A sequential step the worker runs on its
 * main thread (`IsolateRunRequest.stepHere`) gets that thread's V8 stack limit, about 984 KB by
 * default: a script's recursion then stops near 12,500 frames, against about 104,000 on the
 * threads isolated-vm runs its isolates on (measured, Node 24, isolated-vm 7.0.1). V8's
 * `--stack-size` raises the limit, but V8 does not check it against the thread's real stack: a
 * limit past it turns deep recursion into a crash. The main thread's real stack is the process's
 * `RLIMIT_STACK` (Linux grows it on demand up to that), less what the kernel put at its top
 * before the process started: the environment and the arguments (a 1.2 MB environment made a
 * recursion crash the worker with SIGSEGV under an 8 MB limit, found in review). So the flag is
 * given only when that limit, less those, leaves a megabyte to spare; otherwise the worker keeps
 * every step on isolated-vm's threads.
 */
import { readFileSync } from 'node:fs'

/** V8 stack limit in KB for the worker's main thread: about 89,000 frames of a plain recursion (measured). */
export const STEP_STACK_KB = 7_000

/** Room in KB left between the V8 limit and the thread's real stack (native frames V8 does not count). */
const SPARE_KB = 1_024

let cachedLimitKb: number | undefined

/**
 * The worker's `--stack-size=…` flag, or `undefined` when this system's stack limit (read from
 * `/proc/self/limits`; children inherit it) is unknown or, less the worker's environment (this
 * process's, which it inherits, and `extraEnv`) and arguments, too small for {@link STEP_STACK_KB}.
 * The limit is read once per process. Never throws.
 */
export function workerStackFlag(extraEnv: Readonly<Record<string, string>>, args: readonly string[]): string | undefined {
  cachedLimitKb ??= stackLimitKb()
  return stackRoomKb(cachedLimitKb, { ...process.env, ...extraEnv }, args) >= STEP_STACK_KB ? `--stack-size=${STEP_STACK_KB}` : undefined
}

/** KB of stack left for V8 under a `limitKb` limit, once `env`, `args` and a megabyte of spare room are taken off. */
export function stackRoomKb(limitKb: number, env: Readonly<Record<string, string | undefined>>, args: readonly string[]): number {
  let bytes = 0
  for (const [name, value] of Object.entries(env)) if (value !== undefined) bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 2 + 8
  for (const arg of args) bytes += Buffer.byteLength(arg) + 1 + 8 // the string and its pointer
  return limitKb - Math.ceil(bytes / 1024) - SPARE_KB
}

/** The soft `RLIMIT_STACK` in KB (`Infinity` when unlimited), 0 when unknown. */
export function stackLimitKb(limits = readLimits()): number {
  const soft = /^Max stack size\s+(\S+)/m.exec(limits)?.[1]
  if (soft === undefined) return 0
  if (soft === 'unlimited') return Infinity
  const bytes = Number(soft)
  return Number.isFinite(bytes) ? Math.floor(bytes / 1024) : 0
}

function readLimits(): string {
  try {
    return readFileSync('/proc/self/limits', 'utf8')
  } catch {
    return '' // Not Linux: unknown.
  }
}
