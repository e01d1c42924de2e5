/**
 * Loading tool plugin modules named on the command line (`--tools MODULE…`): a module exports a
 * cordis plugin (an `apply` function, or a default export that is a plugin) or an array of
 * `defineTool` results (default export or a named `tools` export). TypeScript modules load
 * directly on Node 24.
 */
import { spawnSync } from 'node:child_process'
// A namespace import: a named one of this Node-24 API would fail to link on an older Node before
// node-version.ts could say which Node is needed.
import * as nodeModule from 'node:module'
import { basename, extname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Context, Plugin } from 'cordis'
import { BUILTIN_GROUP_TOOLS } from '../builtin/builtin-groups.ts'
import { describeThrown } from '../errors/describe-thrown.ts'
import { PtcError } from '../errors/ptc-error.ts'
import { isTool, type Tool } from '../tools/define-tool.ts'
import { DEFAULT_START_TIMEOUT_MS } from '../ptc/worker-channel.ts'
import { unlessStalled } from './unless-stalled.ts'

/** A module could not be used as a tool module; the message says what it should export. */
export class ToolModuleError extends PtcError {
  /** `options.cause`: what the module or its plugin threw, when it threw (its own stack, for a debugger). */
  constructor(message: string, options?: { cause?: unknown }) {
    super('tool-module', message, options)
  }
}

/**
 * Import each module and install its tools into `ctx`, in order. `limitMs`: how long one module
 * may take to load, and then its `apply` to finish (ms; default 60,000, `DEFAULT_START_TIMEOUT_MS`).
 * @throws ToolModuleError when a module cannot be imported, exports nothing usable, or does not
 *   finish loading or starting (its top-level await or `apply` never settles).
 */
export async function loadToolModules(ctx: Context, modules: readonly string[], limitMs = DEFAULT_START_TIMEOUT_MS): Promise<void> {
  for (const specifier of modules) {
    const module = await importToolModule(specifier, limitMs)
    const tools = [module.default, module.tools].find((value) => Array.isArray(value)) as unknown[] | undefined
    if (tools) {
      const bad = tools.findIndex((tool) => !isTool(tool))
      if (bad >= 0) throw new ToolModuleError(`Tool module ${specifier}: item ${bad} of its tool array is not a defineTool({...}) result.`)
      await startPlugin(ctx, specifier, limitMs, {
        name: `tools:${specifier}`,
        inject: ['tools'],
        apply: (child: Context) => tools.forEach((tool) => child.tools.register(tool as Tool)),
      })
      continue
    }
    const plugin = typeof module.apply === 'function' ? module : isPlugin(module.default) ? module.default : undefined
    if (!plugin) {
      throw new ToolModuleError(
        `Tool module ${specifier} exports neither a cordis plugin (export function apply(ctx) {...}) nor an array of defineTool results (export default [defineTool({...})]).`,
      )
    }
    await startPlugin(ctx, specifier, limitMs, plugin as Plugin)
  }
}

/**
 * Install one module's plugin; a failure while it starts (e.g. a tool name already registered,
 * by a built-in or an earlier module) is a `ToolModuleError` naming the module, for the array
 * form as for a plugin.
 * @throws ToolModuleError when the plugin throws while it starts.
 */
async function startPlugin(ctx: Context, specifier: string, limitMs: number, plugin: Plugin): Promise<void> {
  const fiber = ctx.plugin(plugin)
  try {
    await unlessStalled(fiber, () => new ToolModuleError(`Tool module ${specifier} never finished starting: its apply awaits a promise that never settles, and nothing else is left running. Make every promise apply awaits settle.`), {
      ms: limitMs,
      late: () => new ToolModuleError(`Tool module ${specifier} did not finish starting within ${limitMs} ms (PtcConfig.startTimeoutMs): its apply still awaits a promise. Make every promise apply awaits settle.`),
    })
  } catch (error) {
    if (error instanceof ToolModuleError) throw error
    throw new ToolModuleError(`Tool module ${specifier} failed to start: ${describeThrown(error)}${builtinClash(error)}${injectHint(error)}`, { cause: error })
  }
  // cordis keeps a plugin that injects a service no one provides waiting, without a word: its
  // tools would just be missing (a typo such as inject: ['tool']).
  if (fiber.state === FIBER_PENDING) {
    const missing = Object.entries(fiber.inject).filter(([name, config]) => (config as { required?: unknown } | null)?.required !== false && ctx.get(name) === undefined).map(([name]) => JSON.stringify(name))
    await fiber.dispose()
    throw new ToolModuleError(`Tool module ${specifier} never started: it injects ${missing.join(', ') || 'a service'}, which this host does not provide (its services include tools, approval, sandbox and ptc, and jobs with the jobs tools). Fix the name in its inject list.`)
  }
}

/**
 * For cordis' `cannot get property "tools" without inject`: a plugin reaches a service it did
 * not list in `inject` (a tool author's trial got only cordis' sentence).
 */
function injectHint(error: unknown): string {
  const service = /cannot get property "([^"]+)" without inject/.exec(describeThrown(error))?.[1]
  return service === undefined ? '' : `. A plugin lists the services it uses: add export const inject = [${JSON.stringify(service)}] to the module (or inject: [${JSON.stringify(service)}] to its plugin object).`
}

/** cordis' `FiberState.PENDING` (a const enum, which cannot be imported): waiting for injected services. */
const FIBER_PENDING = 0

/** For a tool name taken by a built-in: which group to leave out (the registry's message says how). */
function builtinClash(error: unknown): string {
  const name = PtcError.isInstance(error) && error.code === 'tool-definition' ? (error.details as { name?: unknown } | undefined)?.name : undefined
  const group = Object.entries(BUILTIN_GROUP_TOOLS).find(([, names]) => names.includes(name as string))?.[0]
  return group === undefined ? '' : ` "${String(name)}" is a built-in tool of the group ${group}.`
}

/**
 * What went wrong importing the module at `url`, in the user's terms: the module itself missing
 * is "no such file" (Node's message names this loader as the importer); otherwise as thrown, with
 * the place: the file and line Node puts at the top of a TypeScript syntax error's stack, the
 * first frame in a file of an error thrown while the module ran, or, for a JavaScript syntax
 * error (whose stack names only Node's loader), the place `node --check` finds in the module.
 */
function importProblem(error: unknown, url: string): string {
  const { code, url: missing, stack } = (error ?? {}) as { code?: unknown; url?: unknown; stack?: unknown }
  if (code === 'ERR_MODULE_NOT_FOUND' && missing === url) return `no such file (${fileURLToPath(url)})`
  const text = typeof stack === 'string' ? stack : ''
  const typeScript = /^(file:\/\/\S+):(\d+)\n/.exec(text)
  if (typeScript !== null) return `${describeThrown(error)} (at ${fileURLToPath(typeScript[1]!)}:${typeScript[2]})`
  // The first frame in the user's files: not Node's, not a package's, not ptc-runner's own.
  for (const [, file, line, column] of text.matchAll(/^\s+at (?:.*?\()?(file:\/\/[^\s)]+?):(\d+):(\d+)\)?$/gm)) {
    if (!file!.includes('/node_modules/') && !file!.startsWith(OWN_SOURCES)) return `${describeThrown(error)} (at ${fileURLToPath(file!)}:${line}:${column})`
  }
  return `${describeThrown(error)}${error instanceof SyntaxError ? syntaxErrorPlace(url) : ''}`
}

/** The folder of ptc-runner's own modules (`src/`, or `dist/src/` in the package), as a file URL. */
const OWN_SOURCES = new URL('..', import.meta.url).href

/**
 * ` (at FILE:LINE)` for a JavaScript module at `url` with a syntax error, from `node --check`
 * (Node reports no place for one it met in `import()`); `''` when the module itself passes (the
 * error is in a module it imports) or the check cannot run.
 */
function syntaxErrorPlace(url: string): string {
  const file = fileURLToPath(url)
  if (!/\.(m|c)?js$/.test(file)) return ''
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 })
  const place = /^(\S+):(\d+)\n/.exec(check.stderr ?? '')
  return place === null ? '' : ` (at ${place[1]!.startsWith('file://') ? fileURLToPath(place[1]!) : place[1]}:${place[2]})`
}

/** Node's warning when it loaded a file as CommonJS that has ES module syntax; names the file. */
const LOADED_AS_COMMONJS = /^Failed to load the ES module: (.+?)\. Make sure to set "type": "module"/

/**
 * Import `specifier` (a path). A `.ts`/`.js` file with `import`/`export` in a `"type": "commonjs"`
 * project is loaded by Node as CommonJS and fails with a SyntaxError after a two-line warning:
 * the warning is held back while importing, and the failure is one line saying what to do.
 * @throws ToolModuleError when the module cannot be imported.
 */
async function importToolModule(specifier: string, limitMs: number): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(specifier)).href
  let loadedAsCommonJs: string | undefined
  const emit = process.emit
  // Node reports it through process.emit('warning') before the import rejects; only that warning is held back.
  process.emit = function (this: NodeJS.Process, event: string | symbol, ...args: unknown[]): boolean {
    const match = event === 'warning' && args[0] instanceof Error ? LOADED_AS_COMMONJS.exec(args[0].message) : null
    if (match) {
      loadedAsCommonJs ??= match[1]
      return false
    }
    return (emit as (this: NodeJS.Process, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args)
  } as typeof process.emit
  try {
    return (await unlessStalled(
      import(url),
      () => new ToolModuleError(`Tool module ${specifier} never finished loading: its top-level await waits for a promise that never settles, and nothing else is left running. Make every promise the module awaits at load settle.`),
      { ms: limitMs, late: () => new ToolModuleError(`Tool module ${specifier} did not finish loading within ${limitMs} ms (PtcConfig.startTimeoutMs): its top-level await is still waiting. Make every promise the module awaits at load settle.`) },
    )) as Record<string, unknown>
  } catch (error) {
    if (error instanceof ToolModuleError) throw error
    if (loadedAsCommonJs !== undefined) throw new ToolModuleError(commonJsMessage(specifier, loadedAsCommonJs))
    // describeThrown: a module may throw anything at import (`throw null`, a string, an object).
    throw new ToolModuleError(`Could not import tool module ${specifier}: ${importProblem(error, url)}`, { cause: error })
  } finally {
    process.emit = emit
  }
}

/** One line: which file Node loaded as CommonJS, because of which package.json, and the two fixes. */
function commonJsMessage(specifier: string, file: string): string {
  const packageJson = nodeModule.findPackageJSON(pathToFileURL(file))
  const why = packageJson === undefined ? 'no package.json says "type": "module"' : `${packageJson} does not say "type": "module"`
  const extension = extname(file)
  const renamed = extension === '.ts' ? `${basename(file, '.ts')}.mts` : extension === '.js' ? `${basename(file, '.js')}.mjs` : undefined
  const which = resolve(specifier) === file ? '' : ` (imported by ${specifier})`
  return `Tool module ${file}${which} uses import/export, but Node loads it as CommonJS because ${why}: ${renamed ? `rename it ${renamed}, or ` : ''}set "type": "module" in that package.json.`
}

function isPlugin(value: unknown): boolean {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { apply?: unknown }).apply === 'function')
}
