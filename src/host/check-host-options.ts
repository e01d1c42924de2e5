/**
 * The checks `createHost` makes on its options before anything starts (issue 14): an unknown
 * option name, an option of the wrong kind, an unknown preset, a negative or non-numeric limit (each one
 * {@link HostOptionsError}, code `host-options`, naming the option and what it takes); and, once
 * the state folder is made, a journal file in a folder that does not exist. So a mistake is
 * reported when the host is created, not when a run fails.
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { HostOptionsError } from '../errors/host-options-error.ts'
import { PtcError } from '../errors/ptc-error.ts'
import { parseMcpConfig } from '../mcp/mcp-config.ts'
import { isPermissionPresetName, PERMISSION_PRESET_NAMES } from '../policy/permission-presets.ts'
import { DEFAULT_RUN_LIMITS, MAX_MEMORY_MB, RUN_LIMIT_MINIMUMS } from '../ptc/isolate/run-limits.ts'
import { maxWallClockMs } from '../ptc/run-deadline.ts'
import type { PtcConfig } from '../ptc/ptc-config.ts'
import type { JobsConfig } from '../jobs/jobs.ts'
import type { HostOptions } from './create-host.ts'
import { MAX_ISOLATE_WORKERS } from '../ptc/isolate/supervisor-group.ts'

/** Every option `createHost` reads (a new one must be listed here: the type says so). */
const HOST_OPTION_NAMES = Object.keys({
  workspace: true, preset: true, toolModules: true, builtins: true, stateDir: true, journal: true,
  journalRetention: true, jobs: true, ptc: true, setup: true, mcpConfig: true,
} satisfies Record<keyof HostOptions, true>)

/** Every `PtcConfig` option (a new one must be listed here: the type says so). */
const PTC_OPTION_NAMES = Object.keys({
  limits: true, maxWallClockMs: true, typecheck: true, checkers: true, poolSize: true, recycleWorkerAfterRuns: true,
  isolateWorkers: true, startTimeoutMs: true, isolation: true, prestart: true, concurrency: true, maxScriptBytes: true, visible: true,
} satisfies Record<keyof PtcConfig, true>)

/** The smallest value of each numeric `ptc` option (whole numbers; `limits` are separate). */
const PTC_MINIMUMS = { maxWallClockMs: 1, checkers: 1, poolSize: 0, recycleWorkerAfterRuns: 0, concurrency: 1, maxScriptBytes: 1, startTimeoutMs: 1 } as const

/** The smallest value of each numeric `jobs` option (whole numbers); they are all its options. */
const JOBS_MINIMUMS = { ringBytes: 1, killWaitMs: 0, maxRunningPerOwner: 1, retainEnded: 0 } as const satisfies Record<keyof JobsConfig, number>

/**
 * Check `options` as {@link createHost} does before it starts anything.
 * @throws HostOptionsError for options that are not an object, an unknown option (at the top level, in `ptc`, `ptc.limits` or `jobs`), an option of the wrong kind (a number for
 *   `workspace`, a string for `toolModules`…), an unknown `preset`, or a numeric `ptc`,
 *   `ptc.limits` or `jobs` value that is not a number at or above its minimum (a whole one for
 *   counts and sizes), a `ptc.typecheck` or `ptc.prestart` that is not a boolean, a `ptc.limits`
 *   that is not an object, or a `ptc.visible` that is not a function.
 * @throws McpConfigError when `mcpConfig` is an object that is not a valid config.
 */
export function checkHostOptions(options: HostOptions): void {
  if (!isPlainObject(options)) {
    const hint = options instanceof Promise ? ' (a Promise: await the options first)' : ''
    throw new HostOptionsError(`createHost takes an options object ({ workspace, preset, ptc, ... }, or nothing), got ${describeValue(options)}${hint}.`, { option: '(options)' })
  }
  const unknownOption = unknownKey(options, HOST_OPTION_NAMES)
  if (unknownOption !== undefined) {
    throw new HostOptionsError(`createHost has no option "${unknownOption}"; the options are ${HOST_OPTION_NAMES.join(', ')} (run limits go in ptc.limits).`, { option: unknownOption })
  }
  checkKinds(options)
  if (options.preset !== undefined && !isPermissionPresetName(options.preset)) {
    throw new HostOptionsError(`preset ${JSON.stringify(options.preset)} is not a permission preset; use one of ${PERMISSION_PRESET_NAMES.join(', ')}.`, { option: 'preset' })
  }
  const ptc = options.ptc ?? {}
  const unknownPtc = unknownKey(ptc, PTC_OPTION_NAMES)
  if (unknownPtc !== undefined) throw new HostOptionsError(`ptc has no option "${unknownPtc}"; the options are ${PTC_OPTION_NAMES.join(', ')}.`, { option: `ptc.${unknownPtc}` })
  checkNumbers('ptc', ptc as Record<string, unknown>, PTC_MINIMUMS, true)
  const workers = ptc.isolateWorkers as unknown
  if (workers !== undefined && (typeof workers !== 'number' || !Number.isInteger(workers) || workers < 1 || workers > MAX_ISOLATE_WORKERS)) {
    const got = typeof workers === 'string' ? JSON.stringify(workers) : String(workers)
    throw new HostOptionsError(`ptc.isolateWorkers takes a whole number from 1 to ${MAX_ISOLATE_WORKERS} (each is a process of 70-90 MB), got ${got}.`, { option: 'ptc.isolateWorkers' })
  }
  if (ptc.isolation !== undefined && ptc.isolation !== 'process' && ptc.isolation !== 'inline') {
    throw new HostOptionsError(`ptc.isolation takes 'process' or 'inline', got ${JSON.stringify(ptc.isolation)}.`, { option: 'ptc.isolation' })
  }
  if (ptc.visible !== undefined && typeof ptc.visible !== 'function') {
    throw new HostOptionsError(`ptc.visible takes a function (tool) => boolean choosing the tools scripts see, got ${describeValue(ptc.visible)}; leave it out for every tool.`, { option: 'ptc.visible' })
  }
  // A string such as 'no' would be truthy: the user's intent silently inverted.
  for (const key of ['typecheck', 'prestart'] as const) {
    if (ptc[key] !== undefined && typeof ptc[key] !== 'boolean') {
      throw new HostOptionsError(`ptc.${key} takes true or false, got ${describeValue(ptc[key])}.`, { option: `ptc.${key}` })
    }
  }
  if (ptc.limits !== undefined && !isPlainObject(ptc.limits)) {
    throw new HostOptionsError(`ptc.limits takes an object of run limits ({ wallClockMs, memoryMb, ... }), got ${describeValue(ptc.limits)}.`, { option: 'ptc.limits' })
  }
  const limits = (ptc.limits ?? {}) as Record<string, unknown>
  const unknownLimit = unknownKey(limits, Object.keys(DEFAULT_RUN_LIMITS))
  if (unknownLimit !== undefined) {
    throw new HostOptionsError(`ptc.limits has no limit "${unknownLimit}"; the limits are ${Object.keys(DEFAULT_RUN_LIMITS).join(', ')}.`, { option: `ptc.limits.${unknownLimit}` })
  }
  checkNumbers('ptc.limits', limits, RUN_LIMIT_MINIMUMS, false)
  // Counts and sizes are whole: 1.5 tool calls would silently be 1.
  checkNumbers('ptc.limits', limits, pick(RUN_LIMIT_MINIMUMS, ['maxToolCalls', 'maxCallsInFlight', 'maxCrossingBytes', 'maxLogBytes']), true)
  if (typeof limits.memoryMb === 'number' && limits.memoryMb > MAX_MEMORY_MB) {
    throw new HostOptionsError(`ptc.limits.memoryMb takes at most ${MAX_MEMORY_MB} (1 TiB; isolated-vm's limit wraps around past it), got ${limits.memoryMb}.`, { option: 'ptc.limits.memoryMb' })
  }
  const cap = maxWallClockMs(ptc)
  if (typeof limits.wallClockMs === 'number' && typeof cap === 'number' && limits.wallClockMs > cap) {
    throw new HostOptionsError(
      `ptc.limits.wallClockMs (${limits.wallClockMs} ms, every run's default deadline) is over ptc.maxWallClockMs (${cap} ms${ptc.maxWallClockMs === undefined ? ', its default' : ''}, the longest a run may ask for); lower the default or raise ptc.maxWallClockMs.`,
      { option: 'ptc.limits.wallClockMs' },
    )
  }
  const unknownJobs = unknownKey(options.jobs ?? {}, Object.keys(JOBS_MINIMUMS))
  if (unknownJobs !== undefined) throw new HostOptionsError(`jobs has no option "${unknownJobs}"; the options are ${Object.keys(JOBS_MINIMUMS).join(', ')}.`, { option: `jobs.${unknownJobs}` })
  checkNumbers('jobs', (options.jobs ?? {}) as Record<string, unknown>, JOBS_MINIMUMS, true)
  // A config object is checked as a config file is (`ptc --mcp-config`): McpConfigError lists every problem.
  if (isObject(options.mcpConfig)) parseMcpConfig(options.mcpConfig)
}

/** The first own key of `values` that is not one of `known`, else `undefined`. */
function unknownKey(values: object, known: readonly string[]): string | undefined {
  return Object.keys(values).find((key) => !known.includes(key))
}

function pick<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, object[key]])) as Pick<T, K>
}

/** What each option whose value is not a number must be, as a test and the words for it. */
const OPTION_KINDS: readonly [keyof HostOptions, (value: unknown) => boolean, string][] = [
  ['workspace', (value) => typeof value === 'string', 'a folder path (a string)'],
  ['stateDir', (value) => typeof value === 'string' || value === false, 'a folder path (a string) or false'],
  ['journal', (value) => typeof value === 'string' || value === false, 'a file path (a string) or false'],
  ['toolModules', (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'), 'an array of module paths (strings)'],
  ['setup', (value) => typeof value === 'function', 'a function (ctx) => void'],
  ['mcpConfig', (value) => typeof value === 'string' || isObject(value), 'a config file path (a string) or a parsed { mcpServers } object'],
  ['ptc', isObject, 'an object (PtcConfig)'],
  ['jobs', isObject, 'an object (JobsConfig)'],
]

/**
 * Each option set to a value of the wrong kind (`workspace: 5`, `toolModules: './x.mjs'`, which
 * would be read letter by letter) is refused before anything is created.
 * @throws HostOptionsError naming the option, what it takes and what it got.
 */
function checkKinds(options: HostOptions): void {
  for (const [option, ok, takes] of OPTION_KINDS) {
    const value = options[option]
    if (value === undefined || ok(value)) continue
    throw new HostOptionsError(`${option} takes ${takes}, got ${describeValue(value)}.`, { option })
  }
}

/** An object literal (or one made with a null prototype), not a Date, Map, Promise or class instance. */
function isPlainObject(value: unknown): boolean {
  if (!isObject(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeValue(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) return `a ${(value as object).constructor?.name ?? 'non-plain object'}`
  if (Array.isArray(value)) return `an array ${JSON.stringify(value)?.slice(0, 80)}`
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' && value !== null ? 'an object' : String(value)
}

/** @throws HostOptionsError when a field of `values` named in `minimums` is set but not a finite number ≥ its minimum (and whole, when `whole`). */
function checkNumbers(prefix: string, values: Record<string, unknown>, minimums: Readonly<Record<string, number>>, whole: boolean): void {
  for (const [key, minimum] of Object.entries(minimums)) {
    const value = values[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum || (whole && !Number.isInteger(value))) {
      throw new HostOptionsError(`${prefix}.${key} takes a ${whole ? 'whole ' : ''}number ≥ ${minimum}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`, { option: `${prefix}.${key}` })
    }
  }
}

/**
 * The journal file a caller named (`--journal`) goes into an existing folder: like the workspace,
 * it is never created (a typo must not make folders). `createHost` checks it once the state folder
 * (`.ptc`) exists, so `.ptc/j.jsonl` in a fresh workspace is fine.
 * @throws PtcError (`journal-unwritable`) unless the folder of `file` is an existing directory
 *   and `file` itself is not one.
 */
export function checkJournalFolder(file: string): void {
  const folder = dirname(resolve(file))
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new PtcError('journal-unwritable', `Cannot write the journal ${resolve(file)}: it is a folder. Name a file, for example ${join(resolve(file), 'session.jsonl')} (the journal option; --journal for ptc).`, { details: { file } })
  }
  let problem: string | undefined
  if (!existsSync(folder)) problem = 'does not exist'
  else if (!statSync(folder).isDirectory()) problem = 'is not a directory'
  if (problem) {
    throw new PtcError('journal-unwritable', `Cannot write the journal ${resolve(file)}: its folder ${folder} ${problem}. Create the folder first, or name a file in an existing folder (the journal option; --journal for ptc).`, { details: { file } })
  }
}
