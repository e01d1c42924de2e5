/**
 * The compile step of `run_code` (SPEC S9.1): a model's TypeScript script becomes the JavaScript
 * body the isolate runs. Type checking is separate (`type-checker.ts`); this only strips types,
 * rejects module access and reports syntax errors in the user's own coordinates.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { sep } from 'node:path'
import { PtcError } from '../errors/ptc-error.ts'
import type { Diagnostic } from './compile-diagnostics.ts'
import { formatDiagnostics } from './compile-diagnostics.ts'
import { bodyEndDiagnostic, esbuildDiagnostic, isTransformFailure } from './esbuild-diagnostics.ts'
import { hiddenDiagnostics, MAX_DIAGNOSTICS } from './format-diagnostics.ts'
import {
  blankRanges,
  findModuleUses,
  NO_IMPORTS_MESSAGE,
  positionAt,
  GUARD_PREFIX,
  GUARD_SUFFIX,
  SCRIPT_PREFIX,
  SCRIPT_SUFFIX,
  splitLines,
  type ModuleUse,
} from './compile-source.ts'
import { mayUseModules, plainJavaScript } from './plain-script.ts'

export type { Diagnostic } from './compile-diagnostics.ts'

/**
 * A compiled script. `js` is the BODY of an async function, strict mode, plain script syntax (no
 * `import`, `export`, `require` or module wrapper): the runner evaluates
 * `(async () => { <js> })()` and the promise settles with the script's top-level `return` value
 * (`undefined` without one). Frozen, and shared between callers through the cache.
 */
export interface CompiledScript {
  readonly js: string
  /**
   * Source map (version 3, JSON text, no `sourcesContent`) from `js` back to the script: its
   * generated lines are the lines of `js`; its original line N (0-based) is the user's line N
   * (1-based), because line 0 of the mapped source is the wrapper's `SCRIPT_PREFIX`. Read it with
   * `scriptPosition` (`script-positions.ts`).
   */
  readonly map: string
}

/**
 * Thrown by {@link compileScript} when the script cannot run: syntax errors, or a runtime
 * `import` / `import()` / `require()` (`NO_IMPORTS_MESSAGE`). `diagnostics` are in the user's
 * coordinates (1-based line and column); `message` is their {@link formatDiagnostics} rendering.
 * Use {@link CompileError.isInstance} across realms, where `instanceof` fails.
 */
export class CompileError extends PtcError {
  declare readonly code: 'compile_error'
  readonly diagnostics: readonly Diagnostic[]

  constructor(diagnostics: readonly Diagnostic[]) {
    super('compile_error', formatDiagnostics(diagnostics))
    this.diagnostics = diagnostics
  }

  static override isInstance(value: unknown): value is CompileError {
    return PtcError.hasCode(value, 'compile_error')
  }
}

/** How many distinct scripts keep their compile result (successes and compile errors alike). */
const CACHE_SIZE = 128
/** Keyed by SHA-256 of the code; Map order is recency order (re-inserted on every hit). */
const cache = new Map<string, Promise<CompiledScript>>()

/**
 * Compiles `code` (TypeScript, the body of an async function: top-level `await` and `return`
 * allowed, `import type` lines erased) to a {@link CompiledScript}. Rejects with
 * {@link CompileError} for syntax errors and runtime module access; other rejections are esbuild
 * infrastructure failures. The same code compiles once: later calls resolve to the same object
 * (or reject with the same `CompileError`) while it stays among the last 128 scripts.
 */
export function compileScript(code: string): Promise<CompiledScript> {
  const key = createHash('sha256').update(code).digest('base64')
  const cached = cache.get(key)
  if (cached !== undefined) {
    cache.delete(key)
    cache.set(key, cached)
    return cached
  }
  const pending = compileUncached(code)
  cache.set(key, pending)
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!)
  // An infrastructure failure may not recur, so it must not stick; a CompileError always would.
  pending.catch((error: unknown) => {
    if (!CompileError.isInstance(error) && cache.get(key) === pending) cache.delete(key)
  })
  return pending
}

/**
 * Turns a wrapped script into JavaScript and its source map; rejects like esbuild's `transform`
 * (an `Error` with esbuild's `errors`) when the script does not parse.
 */
export type ScriptTransform = (source: string) => Promise<{ code: string; map: string }>

/** Where this thread's compiles transform; `undefined`: esbuild in this thread. */
let scriptTransform: ScriptTransform | undefined

/**
 * Sets where the compiles of this thread transform their script (a checker thread: its host,
 * `check/host-transform.ts`); `undefined` for esbuild in this thread (the default).
 */
export function setScriptTransform(transform: ScriptTransform | undefined): void {
  scriptTransform = transform
}

/**
 * Stops this process's esbuild service when esbuild has been loaded (never loads it): its child
 * process would otherwise live until the process exits. esbuild starts it again on its next use.
 * For the last PTC service's dispose (`ptc-service.ts`).
 */
export function stopEsbuildService(): void {
  // esbuild's entry is CommonJS: once imported it is in the require cache (looked up by path, not
  // resolved: resolving would not load it either, but needs no work when it was never used).
  const cache = createRequire(import.meta.url).cache
  const entry = Object.keys(cache).find((path) => path.endsWith(`${sep}node_modules${sep}esbuild${sep}lib${sep}main.js`))
  const esbuild = entry === undefined ? undefined : (cache[entry]?.exports as { stop?: () => Promise<void> } | undefined)
  esbuild?.stop?.().catch(() => {})
}

/** Set once this process's esbuild service answered a transform (see {@link esbuildStarted}). */
let esbuildAnswered = false

/**
 * Whether this process's esbuild service has answered a transform, so a compile through it no
 * longer waits for its start (`prepare-in-host.ts` charges compiles to the script from then on).
 */
export function esbuildStarted(): boolean {
  return esbuildAnswered
}

/** esbuild's `transform` of a wrapped script (see {@link ScriptTransform}), with the options of every compile. */
export async function esbuildTransform(source: string): Promise<{ code: string; map: string }> {
  // Loaded on first use: a checker started from its snapshot (checker-snapshot-entry.ts) can
  // load userland modules only after start-up.
  const { transform } = await import('esbuild')
  // A syntax error is an answer too: the service has started either way.
  const result = await transform(source, {
    loader: 'ts',
    // What V8 in Node 24 / isolated-vm 7 runs natively; only newer syntax gets lowered.
    target: 'es2024',
    // No `format`: esbuild then neither adds a module wrapper nor `exports`/`require` shims.
    sourcefile: 'script.ts',
    charset: 'utf8',
    logLevel: 'silent',
    // Runtime errors point at the script's own lines (issue 11): mapped back on the host.
    sourcemap: 'external',
    sourcesContent: false,
  }).finally(() => (esbuildAnswered = true))
  return { code: result.code, map: result.map }
}

/**
 * The `NO_IMPORTS_MESSAGE` diagnostics of `code`'s run-time module uses (`import`, `import()`,
 * `require()`; `import type` is fine), `[]` for none. Loads TypeScript only when `code` mentions
 * a module at all. For a type-checked script, whose checker would otherwise only say that `fs` or
 * `require` has no declarations (`prepare-script.ts`).
 */
export async function moduleUseErrors(code: string): Promise<Diagnostic[]> {
  return runtimeUseErrors(code, await moduleUses(code))
}

/** Every module use of `code`, `import type` included (blanked before the transform); TypeScript is loaded only when `code` may use one (`mayUseModules`). */
async function moduleUses(code: string): Promise<ModuleUse[]> {
  return mayUseModules(code) ? findModuleUses((await import('typescript')).default, code) : []
}

/** The `NO_IMPORTS_MESSAGE` diagnostics of the run-time ones among `uses`. */
function runtimeUseErrors(code: string, uses: readonly ModuleUse[]): Diagnostic[] {
  return uses.filter((use) => use.kind !== 'type-import').map((use) => moduleUseDiagnostic(code, use))
}

async function compileUncached(code: string): Promise<CompiledScript> {
  const uses = await moduleUses(code)
  const importErrors = runtimeUseErrors(code, uses)
  if (importErrors.length > 0) throw new CompileError(importErrors)

  const body = blankRanges(code, uses)
  let output: string
  let map: string
  try {
    ;({ code: output, map } = plainJavaScript(body) ?? (await transformGuarded(body)))
  } catch (error) {
    if (error === EARLY_CLOSE) throw new CompileError(await bodyEndDiagnostic(code, body, scriptTransform ?? esbuildTransform))
    if (!isTransformFailure(error)) throw error
    // At most MAX_DIAGNOSTICS, then one line counting the rest (9,000 errors had all been mapped and listed).
    const lineCount = splitLines(code).length
    const diagnostics = error.errors.slice(0, MAX_DIAGNOSTICS + 1).map((message) => esbuildDiagnostic(code, message, 1, lineCount))
    const atBodyEnd = diagnostics.find(({ bodyEnd }) => bodyEnd)
    if (atBodyEnd !== undefined) throw new CompileError(await bodyEndDiagnostic(code, body, scriptTransform ?? esbuildTransform, atBodyEnd.message))
    const shown = diagnostics.slice(0, MAX_DIAGNOSTICS).map(({ bodyEnd, ...diagnostic }) => diagnostic)
    const hidden = error.errors.length - MAX_DIAGNOSTICS
    throw new CompileError(hidden > 0 ? [...shown, hiddenDiagnostics(diagnostics[MAX_DIAGNOSTICS]!, hidden, hidden)] : shown)
  }
  // Keep the whole output (esbuild may emit helpers next to the function) and call it.
  return Object.freeze({ js: `${JS_PREAMBLE}${output}return await __ptc_main__();\n`, map: shiftMap(map) })
}

/**
 * `SCRIPT_PREFIX` as esbuild reads it: with a `"use strict"` directive on the same line (the
 * script's lines keep their numbers), so esbuild refuses, at the script's own line and column,
 * what strict mode forbids and V8 would refuse only inside the isolate, without the position
 * (`with`, `delete x`, legacy octal literals and escapes, a parameter named twice, `eval = ...`,
 * reserved words); a legacy octal `010` was even rewritten to `8` and ran (a new-user trial).
 */
const STRICT_PREFIX = `"use strict"; ${SCRIPT_PREFIX}`

/**
 * Ends every wrapped script: esbuild composes its map with the input's own source map comment,
 * the last one it reads, so a script's `//# sourceMappingURL=data:…` took its errors' lines and
 * columns away (a hostile trial). A comment naming no data URL after it makes esbuild use none.
 */
const NO_INPUT_MAP = '//# sourceMappingURL=ptc-no-input-map\n'

/** Thrown by {@link transformGuarded} for a script that parses in its wrapper but not in the guard wrapper. */
const EARLY_CLOSE = new Error('a stray } closed the script body early')

/**
 * esbuild's output of `body` in its wrapper, once it also parses in the guard wrapper
 * (`GUARD_PREFIX`: its braces balance); both at once. Rejects as esbuild does when the wrapped
 * script does not parse, and with {@link EARLY_CLOSE} when only the guard fails: whatever esbuild
 * says then is about the guard's own lines, and the cause is always a stray `}`.
 */
async function transformGuarded(body: string): Promise<{ code: string; map: string }> {
  const transform = scriptTransform ?? esbuildTransform
  const [wrapped, guarded] = await Promise.allSettled([transform(STRICT_PREFIX + body + SCRIPT_SUFFIX + NO_INPUT_MAP), transform(GUARD_PREFIX + body + GUARD_SUFFIX + NO_INPUT_MAP)])
  if (wrapped.status === 'rejected') throw wrapped.reason
  if (guarded.status === 'rejected') throw isTransformFailure(guarded.reason) ? EARLY_CLOSE : guarded.reason
  return wrapped.value
}

/** The line `js` starts with, ahead of esbuild's output. */
const JS_PREAMBLE = '"use strict";\n'

/** esbuild's map of its output, moved down by the preamble's one line (a `;` starts a generated line). */
function shiftMap(map: string): string {
  const parsed = JSON.parse(map) as { mappings: string }
  parsed.mappings = `;${parsed.mappings}`
  return JSON.stringify(parsed)
}

function moduleUseDiagnostic(code: string, use: ModuleUse): Diagnostic {
  return { ...positionAt(code, use.start), message: NO_IMPORTS_MESSAGE, category: 'error' }
}
