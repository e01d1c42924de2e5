/**
 * The compile step of an unchecked script without a checker worker (SPEC S9.1; issue 12: a
 * `ptc run --no-typecheck` starts no checker process). esbuild already does its work in a
 * process of its own (its service, started with the first compile), so the host only hands it
 * the text and waits: the host's event loop does nothing whose length the script decides beyond
 * copying the text there and back, exactly as it would to and from a checker (issue 16).
 * A script that may use modules (`import` or `require`: `mayUseModules`) still goes to a checker:
 * finding those needs TypeScript's parser, which stays out of the host.
 */
import { compileScript, esbuildStarted } from '../compile.ts'
import { isPlainScript, mayUseModules } from '../plain-script.ts'
import type { TypeChecker } from '../type-checker.ts'
import type { PrepareOptions, PrepareResult } from './checker-contract.ts'
import { prepareScript } from './prepare-script.ts'

/**
 * Whether {@link prepareInHost} can compile `code` for an unchecked run: true unless the script
 * may use modules (see `mayUseModules`).
 */
export function canPrepareInHost(code: string): boolean {
  return !mayUseModules(code)
}

/**
 * Starts compiling `code` now, when {@link prepareInHost} could compile it, so esbuild's service
 * starts while the caller does other work (a `ptc run --no-typecheck` loads the host meanwhile);
 * the later {@link prepareInHost} of the same code then finds the result in the compile cache
 * (`compileScript`). Resolves once esbuild's module is loaded and the compile is under way, not
 * when it ends. Never rejects; a failure is left for that later compile to report.
 */
export async function precompileInHost(code: string): Promise<void> {
  if (!canPrepareInHost(code)) return
  if (isPlainScript(code)) return void compileScript(code).catch(() => {}) // No esbuild needed.
  try {
    // esbuild's service process starts with its first call: now, before the caller loads more.
    const esbuild = await import('esbuild')
    esbuild.transform('', { loader: 'ts', logLevel: 'silent' }).catch(() => {})
  } catch {
    return
  }
  compileScript(code).catch(() => {})
}

/** What an uncharged compile (esbuild's service not started yet) may take beyond the deadline, in ms: its start. */
export const ESBUILD_START_ALLOWANCE_MS = 2_000

/**
 * Compiles `code` (not type-checked) with esbuild from this process, with the result shape of
 * `CheckerPool.prepare`: `compiled`, or `syntax-error` with diagnostics in the user's coordinates.
 * The deadline (`options.timeoutMs`) counts from the call, except for compiles before esbuild's
 * service first answered in this process (`esbuildStarted`), which may include its start and are
 * not charged, as a checker pool's first start is not; `timeout` when it passes first, `cancelled` when `options.signal` aborts first
 * (the compile itself then finishes unobserved). `declarations` are not used.
 * @throws Error when esbuild cannot start or fails (infrastructure), as `CheckerPool.prepare` does
 *   when no checker can start.
 */
export async function prepareInHost(code: string, options: Pick<PrepareOptions, 'timeoutMs' | 'signal'>): Promise<PrepareResult> {
  const called = performance.now()
  const { signal } = options
  if (signal?.aborted) return { outcome: { kind: 'cancelled' }, startedAt: called, checkMs: 0 }
  // Until esbuild's service first answered, a compile may include its start (a plain JavaScript
  // script, plain-script.ts, needs none, and takes a millisecond uncharged).
  const charged = esbuildStarted()
  const compiled = prepareScript(noChecker, { code, typecheck: false, compile: true }, '')
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopped = new Promise<'timeout' | 'cancelled'>((resolve) => {
    // Uncharged, the compile still ends by the deadline plus esbuild's start: a script of 30,000
    // syntax errors held esbuild past two minutes of a 1 s deadline (a hostile trial).
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs + (charged ? 0 : ESBUILD_START_ALLOWANCE_MS))
    onAbort = () => resolve('cancelled')
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    const first = await Promise.race([compiled, stopped])
    const startedAt = charged ? called : performance.now()
    const checkMs = performance.now() - startedAt
    return { outcome: typeof first === 'string' ? { kind: first } : { kind: 'prepared', prepared: first }, startedAt, checkMs }
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    compiled.catch(() => {}) // Abandoned after a timeout or cancel: its failure is nobody's.
  }
}

/** An unchecked request never asks for the type checker. */
function noChecker(): Promise<TypeChecker> {
  return Promise.reject(new Error('an unchecked script needs no type checker'))
}
