/**
 * Assembly of a ready host: one cordis root with the registry, approval, the timeout policy, the
 * journal, the workspace tools and their policy, PTC mode (`ctx.ptc` + the `run_code` tool), and
 * any tool modules the user named. The CLI and the MCP server both start from here.
 */
import { existsSync, lstatSync, mkdirSync, realpathSync, statSync, unlinkSync, type Stats } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { Context } from 'cordis'
import * as workspaceTools from '../builtin/workspace-tools.ts'
import * as jobTools from '../jobs/job-tools.ts'
import { Jobs, type JobsConfig } from '../jobs/jobs.ts'
import * as journal from '../journal/journal.ts'
import { DEFAULT_JOURNAL_RETENTION, type JournalRetention, retentionProblem } from '../journal/journal-retention.ts'
import type { McpConfigInput } from '../mcp/mcp-config.ts'
import { Approval } from '../policy/approval.ts'
import * as fsObservationPolicy from '../policy/fs-observation-policy.ts'
import { type PermissionPresetName, PermissionPresets } from '../policy/permission-presets.ts'
import { Sandbox } from '../policy/sandbox.ts'
import { SandboxError } from '../policy/sandbox-errors.ts'
import { SandboxPolicy } from '../policy/sandbox-policy.ts'
import { isInside } from '../workspace/is-inside.ts'
import { STATE_FOLDER } from '../workspace/state-folder.ts'
import * as timeoutPolicy from '../policy/timeout-policy.ts'
import { dropPrestartedWorker, isolateWorkerOptions, prestartIsolateWorker, prestartsWorker } from '../ptc/isolate/worker-start.ts'
import { Ptc, type PtcConfig } from '../ptc/ptc-service.ts'
import * as runCodeTool from '../ptc/run-code-tool.ts'
import { STOP_GRACE_MS, ToolRegistry } from '../pipeline/tool-registry.ts'
import { builtinGroups, type BuiltinsOption } from '../builtin/builtin-groups.ts'
import { HostOptionsError } from '../errors/host-options-error.ts'
import { checkHostOptions, checkJournalFolder } from './check-host-options.ts'
import { cacheServices, type CachedServices } from './cached-services.ts'
import { loadToolModules } from './load-tool-modules.ts'
import { trackOpenCalls } from './open-calls.ts'
import { unlessStalled } from './unless-stalled.ts'

/** Options of {@link createHost}. */
export interface HostOptions {
  /** The workspace root the tools work in (default: the current directory); it must exist. */
  workspace?: string
  /** The permission preset to start with (S8): sandbox mode + approval policy. Default `workspace-write`. */
  preset?: PermissionPresetName
  /** Tool plugin modules to load after the built-in tools. */
  toolModules?: readonly string[]
  /**
   * Built-in tool groups to install (issue 14 item 4): any of `'fs'` (read_file, write_file,
   * edit_file, list_dir, glob, search), `'bash'`, `'jobs'` (job_list, job_read, job_kill), or
   * `'none'` for a host that brings its own tools. Default all three. A group left out is not
   * registered, so scripts can neither call it nor see it in the declarations; without `'jobs'`,
   * `bash` has no `background` parameter.
   */
  builtins?: BuiltinsOption
  /**
   * Where the host's state lives: the session journals (`journal/`) and the spills of oversized
   * `run_code` results (`spill/`, S9.7). Default `<workspace>/.ptc`. Another folder is created if
   * missing; it must not be inside the workspace (only `.ptc` there is protected from the tools).
   * Like `.ptc`, it is hidden from sandboxed commands (S8); the fs tools, confined to the
   * workspace, cannot read spills kept there. `false`: nothing is written to disk
   * (no journal unless `journal` names a file, and an oversized result is cut without a spill).
   */
  stateDir?: string | false
  /** Journal file (its folder must exist); `false` for none; default `<stateDir>/journal/<time>-<pid>.jsonl`. */
  journal?: string | false
  /**
   * How many journals `<stateDir>/journal` keeps, oldest deleted first, applied when the host
   * starts and when `ptc serve` opens a session journal; never the journals this process has
   * open. Default {@link DEFAULT_JOURNAL_RETENTION} (100 files, 100 MiB); `false` keeps all.
   */
  journalRetention?: JournalRetention | false
  /** Background jobs configuration (S10: ring bytes per job, kill wait ms, limits). */
  jobs?: JobsConfig
  /** PTC configuration (limits, type-check default, pool size). */
  ptc?: PtcConfig
  /**
   * Installs extra plugins (policy listeners, approval responders) before tools load. It runs as
   * a plugin of the host with `tools`, `approval` and `sandbox` injected (`ctx.approval.respond(r)`
   * works in it); what it registers lasts as long as the host. A throw or rejection fails `createHost`.
   */
  setup?: (ctx: Context) => void | Promise<void>
  /** MCP servers whose tools are imported as `${server}__${tool}`: a config file path or a parsed config. */
  mcpConfig?: string | McpConfigInput
}

/** The services `Host.ctx` can use directly (`host.ctx.tools`, `host.ctx.ptc`...). */
export const HOST_SERVICES = ['tools', 'approval', 'sandboxPolicy', 'sandbox', 'permissionPresets', 'jobs', 'ptc'] as const

/** A running host. `dispose()` stops every plugin and frees isolates. */
export interface Host {
  /**
   * The host's context (plugins, events, services): a cordis context that injects every one of
   * {@link HOST_SERVICES} and answers them from a cache (`cached-services.ts`, issue 12), so
   * `host.ctx.tools.execute(...)` on every call costs no service lookup.
   */
  ctx: Context
  workspace: string
  /** The host's journal file, or `undefined` when it keeps none. */
  journalFile: string | undefined
  /** The state folder's journal folder (where `ptc serve` puts its session journals), or `undefined` with `stateDir: false`. */
  journalDir: string | undefined
  /** The retention applied in {@link Host.journalDir} (`false`: keep all). */
  journalRetention: JournalRetention | false
  /**
   * Stops every plugin and frees isolates. Calls still finishing (cancelled ones end a moment
   * after their abort) are waited for first, up to 2 s (`DISPOSE_DRAIN_MS`), so each journaled
   * `tool/call` keeps its `tool/result` (S11.1; one that never ends is `cancelled` 1 s after the
   * plugins stop); a call made meanwhile by no script is refused (`failed`, not made). Once: a
   * second call waits for the same dispose.
   */
  dispose(): Promise<void>
}

/**
 * Start a host.
 * @throws HostOptionsError (`host-options`) for an unknown option or built-in group, an option of
 *   the wrong kind (`workspace: 5`, `toolModules: './x.mjs'`), an unknown
 *   `preset` (the message lists the presets), a negative, fractional or non-numeric `ptc`,
 *   `ptc.limits` or `jobs` number (naming the option), a `stateDir` inside the workspace other
 *   than `.ptc`, or an invalid `journalRetention`.
 * @throws PtcError (`journal-unwritable`) when `journal` names a file whose folder does not exist
 *   (it is not created) or that cannot be written.
 * @throws ToolModuleError when a tool module cannot be loaded (the host is disposed first).
 * @throws SandboxError (`sandbox-policy-invalid`) when the workspace does not exist, or the state
 *   folder (or `spill/`, `journal/` in it) is a symlink, not a directory, or not owned by us.
 * @throws McpConfigError / McpConnectionError when `mcpConfig` is invalid or a server cannot start.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  checkHostOptions(options)
  const workspace = resolve(options.workspace ?? '.')
  const groups = builtinGroups(options.builtins)
  const retention = options.journalRetention === undefined ? DEFAULT_JOURNAL_RETENTION : options.journalRetention
  const problem = retention === false ? undefined : retentionProblem(retention)
  if (problem) throw new HostOptionsError(problem)
  // S8: the state folder exists, is ours and is a real directory before any tool can run, so a
  // symlink planted by a `bash` job can never redirect the journal or the spills.
  const named = typeof options.journal === 'string' && options.journal !== '' ? options.journal : undefined
  // A named journal is checked before the state folder is made, so a refused one leaves nothing
  // behind; only one inside the state folder (`.ptc/j.jsonl` in a fresh workspace) waits for it.
  const inState = named !== undefined && options.stateDir !== false && isInside(resolve(options.stateDir ?? join(workspace, STATE_FOLDER)), resolve(named))
  if (named !== undefined && !inState) checkJournalFolder(named)
  const state = options.stateDir === false ? undefined : prepareStateFolder(workspace, options.stateDir)
  if (named !== undefined && inState) checkJournalFolder(named)
  // Issue 12: the isolate worker (Node without its snapshot, isolated-vm: most of a first run's
  // wait) starts before the plugins load; the Ptc service adopts it (`PtcConfig.prestart`).
  const ptc = options.ptc ?? {}
  const prestarted = prestartsWorker(ptc) ? prestartIsolateWorker(isolateWorkerOptions(ptc)) : undefined
  const root = new Context()
  // The journal and the open-call tracker outlive the other plugins (S11.1): a call the dispose leaves
  // open ends `cancelled` a moment after the registry stops, journaled before the journal closes.
  const recorder = root.plugin({ name: 'ptc-recorder', apply: () => {} })
  await recorder
  // Every other plugin goes through this child fiber, so one dispose stops them all, in reverse order.
  const host = root.plugin({ name: 'ptc-host', apply: () => {} })
  await host
  const ctx = host.ctx
  // S11.1: calls still finishing (cancelled a moment ago) get their tool/result journaled first.
  const openCalls = trackOpenCalls(recorder.ctx)
  let cachedServices: CachedServices | undefined
  let disposing: Promise<void> | undefined
  const dispose = () => (disposing ??= (async () => {
    // New calls are refused from here; the drain waits only for those already running.
    cachedServices?.ctx.tools.refuseNewCalls()
    await openCalls.drained()
    cachedServices?.clear()
    await host.dispose()
    // Calls still open end STOP_GRACE_MS after the registry stopped (tool-registry.ts).
    await openCalls.drained(STOP_GRACE_MS + 500)
    await recorder.dispose()
  })())
  // A journal this call creates and a failed start leaves empty goes again (`ptc view` would list it as a session).
  let newJournal: string | undefined
  try {
    await ctx.plugin(ToolRegistry)
    await ctx.plugin(Approval)
    await ctx.plugin(timeoutPolicy)
    const journalFile = options.journal ? resolve(options.journal) : options.journal === false || !state ? undefined : join(state.journal, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.jsonl`)
    // Retention applies only to the state folder's journals, not to a file the caller named elsewhere.
    if (journalFile && !existsSync(journalFile)) newJournal = journalFile
    if (journalFile) await recorder.ctx.plugin(journal, { file: journalFile, ...(retention && state && !options.journal && { retention }) })
    // S8: one sandbox policy (the workspace root) read by both the fs tools and bash.
    await ctx.plugin(SandboxPolicy, { workspaceRoots: [workspace], ...(state?.outside && { stateDirs: [state.outside] }) })
    await ctx.plugin(Sandbox)
    await ctx.plugin(PermissionPresets, { preset: options.preset ?? 'workspace-write' })
    await ctx.plugin(fsObservationPolicy)
    // A plugin of its own with the services it may use injected, so `ctx.approval.respond(...)`
    // and `ctx.tools` work in it (cordis refuses a service a plugin did not inject).
    const { setup } = options
    if (setup) await ctx.plugin({ name: 'host-setup', inject: ['tools', 'approval', 'sandbox'], apply: (scope: Context) => setup(scope) })
    // S10: jobs before the tools that start them (bash background) and the job_* tools.
    await ctx.plugin(Jobs, options.jobs ?? {})
    if (groups.has('fs') || groups.has('bash')) await ctx.plugin(workspaceTools, { fs: groups.has('fs'), bash: groups.has('bash'), background: groups.has('jobs') })
    if (groups.has('jobs')) await ctx.plugin(jobTools)
    await ctx.plugin(Ptc, ptc)
    await ctx.plugin(runCodeTool, state ? { spillDir: state.spill, ...(state.outside && { spillOutside: true }) } : { spill: false })
    await loadToolModules(ctx, options.toolModules ?? [], options.ptc?.startTimeoutMs)
    if (options.mcpConfig !== undefined) {
      // Loaded only here: the MCP SDK and ajv are a third of a host's start-up, for hosts that import no server.
      const [mcpImport, { loadMcpConfig, parseMcpConfig }] = await Promise.all([import('../mcp/mcp-import.ts'), import('../mcp/mcp-config.ts')])
      // An object gets the defaults a file's JSON gets (`args: []`), not only its check.
      await ctx.plugin(mcpImport, typeof options.mcpConfig === 'string' ? loadMcpConfig(options.mcpConfig) : parseMcpConfig(options.mcpConfig))
    }
    // cordis refuses service access from a fiber that did not inject it, and the host fiber
    // cannot inject services it installs itself: hand out a child context that injects them.
    let services: Context | undefined
    await ctx.plugin({ name: 'ptc-host-services', inject: [...HOST_SERVICES], apply: (child: Context) => void (services = child) })
    if (!services) throw new Error('ptc-runner: the host services did not start')
    cachedServices = cacheServices(services, HOST_SERVICES)
    return { ctx: cachedServices.ctx, workspace, journalFile, journalDir: state?.journal, journalRetention: retention, dispose }
  } catch (error) {
    dropPrestartedWorker(prestarted)
    // A plugin that never settled (a tool module's apply) keeps its fiber from disposing: the
    // error still reaches the caller once nothing else is running.
    await unlessStalled(dispose(), () => new Error('dispose stalled')).catch(() => {})
    if (newJournal !== undefined) removeIfEmpty(newJournal)
    throw error
  }
}

/**
 * Create the state folder (default `<workspace>/.ptc`, else `stateDir`, created with its parents)
 * with `spill/` and `journal/` (S8), refusing (a `SandboxError`) when one exists as a symlink, a
 * non-directory or a directory owned by another user. `undefined` when the workspace itself does
 * not exist (the sandbox policy reports that).
 * @throws HostOptionsError when `stateDir` is inside the workspace but is not its `.ptc`.
 */
function prepareStateFolder(workspace: string, stateDir: string | undefined): { journal: string; spill: string; outside?: string } | undefined {
  let real: string
  try {
    real = realpathSync(workspace)
  } catch {
    return undefined
  }
  const dirs: string[] = []
  let folder = join(real, STATE_FOLDER)
  if (stateDir !== undefined) {
    const at = realpathOfPath(resolve(stateDir))
    // Checked before anything is created: a refused stateDir leaves no folder behind.
    if (at !== folder && isInside(real, at)) {
      throw new HostOptionsError(
        `stateDir ${stateDir} is inside the workspace ${real}, where the tools could change the journals; use a folder outside it, or leave stateDir out for ${folder}.`,
        { stateDir },
      )
    }
    mkdirSync(at, { recursive: true })
    folder = at
  }
  if (folder === join(real, STATE_FOLDER)) dirs.push(folder)
  else checkOwnDirectory(folder, lstatSync(folder), folder)
  dirs.push(join(folder, 'spill'), join(folder, 'journal'))
  for (const dir of dirs) {
    // Not recursive: the parent was just checked, and mkdir never follows a final symlink. EEXIST:
    // it was there, or another process (a second `ptc` in this workspace) just made it; checked as any.
    try {
      mkdirSync(dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    checkOwnDirectory(dir, lstatSync(dir), folder)
  }
  return { journal: join(folder, 'journal'), spill: join(folder, 'spill'), ...(folder !== join(real, STATE_FOLDER) && { outside: folder }) }
}

/** `absolute` with its deepest existing ancestor realpath'd (the rest may not exist yet). */
function realpathOfPath(absolute: string): string {
  const parent = dirname(absolute)
  try {
    return realpathSync(absolute)
  } catch {
    return parent === absolute ? absolute : join(realpathOfPath(parent), basename(absolute))
  }
}

/** @throws SandboxError unless `stat` (of `dir`) is a real directory owned by this user. */
function checkOwnDirectory(dir: string, stat: Stats, folder: string): void {
  const problem = stat.isSymbolicLink()
    ? 'is a symbolic link'
    : !stat.isDirectory()
      ? 'is not a directory'
      : process.getuid && stat.uid !== process.getuid()
        ? `is owned by uid ${stat.uid}, not by this user`
        : undefined
  if (problem) {
    throw new SandboxError(
      'sandbox-policy-invalid',
      `${dir} ${problem}; ptc-runner keeps the session journal and spills in ${folder} and refuses to start while they could be redirected. Remove it and start again.`,
      { path: dir },
    )
  }
}

/** Deletes `file` when it exists and is empty; never throws (only tidying). */
function removeIfEmpty(file: string): void {
  try {
    if (statSync(file).size === 0) unlinkSync(file)
  } catch {
    // Gone already, or not ours to remove.
  }
}
