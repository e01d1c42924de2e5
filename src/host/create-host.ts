/**
 * Assembly of a ready host: one cordis root with the registry, approval, the timeout policy, the
 * journal, the workspace tools and their policy, PTC mode (`ctx.ptc` + the `run_code` tool), and
 * any tool modules the user named. The CLI and the MCP server both start from here.
 */
import { lstatSync, mkdirSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Context } from 'cordis'
import * as workspaceTools from '../builtin/workspace-tools.ts'
import * as jobTools from '../jobs/job-tools.ts'
import { Jobs, type JobsConfig } from '../jobs/jobs.ts'
import * as journal from '../journal/journal.ts'
import type { McpConfig } from '../mcp/mcp-config.ts'
import { Approval } from '../policy/approval.ts'
import * as fsObservationPolicy from '../policy/fs-observation-policy.ts'
import { type PermissionPresetName, PermissionPresets } from '../policy/permission-presets.ts'
import { Sandbox } from '../policy/sandbox.ts'
import { SandboxError } from '../policy/sandbox-errors.ts'
import { SandboxPolicy } from '../policy/sandbox-policy.ts'
import { journalFolder, spillFolder, STATE_FOLDER } from '../workspace/state-folder.ts'
import * as timeoutPolicy from '../policy/timeout-policy.ts'
import { Ptc, type PtcConfig } from '../ptc/ptc-service.ts'
import * as runCodeTool from '../ptc/run-code-tool.ts'
import { ToolRegistry } from '../pipeline/tool-registry.ts'
import { loadToolModules } from './load-tool-modules.ts'

/** Options of {@link createHost}. */
export interface HostOptions {
  /** The workspace root the tools work in (default: the current directory); it must exist. */
  workspace?: string
  /** The permission preset to start with (S8): sandbox mode + approval policy. Default `workspace-write`. */
  preset?: PermissionPresetName
  /** Tool plugin modules to load after the built-in tools. */
  toolModules?: readonly string[]
  /** Journal file; `false` for none; default `<workspace>/.ptc/journal/<time>-<pid>.jsonl`. */
  journal?: string | false
  /** Background jobs configuration (S10: ring bytes per job, kill wait ms, limits). */
  jobs?: JobsConfig
  /** PTC configuration (limits, type-check default, pool size). */
  ptc?: PtcConfig
  /** Installs extra plugins (policy listeners, approval responders) before tools load. */
  setup?: (ctx: Context) => void | Promise<void>
  /** MCP servers whose tools are imported as `${server}__${tool}`: a config file path or a parsed config. */
  mcpConfig?: string | McpConfig
}

/** The services `Host.ctx` can use directly (`host.ctx.tools`, `host.ctx.ptc`...). */
export const HOST_SERVICES = ['tools', 'approval', 'sandboxPolicy', 'sandbox', 'permissionPresets', 'jobs', 'ptc'] as const

/** A running host. `dispose()` stops every plugin and frees isolates. */
export interface Host {
  ctx: Context
  workspace: string
  journalFile: string | undefined
  dispose(): Promise<void>
}

/**
 * Start a host.
 * @throws ToolModuleError when a tool module cannot be loaded (the host is disposed first).
 * @throws SandboxError (`sandbox-policy-invalid`) when the workspace does not exist, or its `.ptc`
 *   state folder (or `spill/`, `journal/` in it) is a symlink, not a directory, or not owned by us.
 * @throws McpConfigError / McpConnectionError when `mcpConfig` is invalid or a server cannot start.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const workspace = resolve(options.workspace ?? '.')
  // S8: the state folder exists, is ours and is a real directory before any tool can run, so a
  // symlink planted by a `bash` job can never redirect the journal or the spills.
  const state = prepareStateFolder(workspace)
  const root = new Context()
  // Every plugin goes through this child fiber, so one dispose stops them all, in reverse order.
  const host = root.plugin({ name: 'ptc-host', apply: () => {} })
  await host
  const ctx = host.ctx
  const dispose = () => host.dispose()
  try {
    await ctx.plugin(ToolRegistry)
    await ctx.plugin(Approval)
    await ctx.plugin(timeoutPolicy)
    const journalFile = options.journal === false ? undefined : journal.journalPath({ workspace: state?.workspace ?? workspace, ...(options.journal && { file: options.journal }) })
    if (journalFile) await ctx.plugin(journal, { file: journalFile })
    // S8: one sandbox policy (the workspace root) read by both the fs tools and bash.
    await ctx.plugin(SandboxPolicy, { workspaceRoots: [workspace] })
    await ctx.plugin(Sandbox)
    await ctx.plugin(PermissionPresets, { preset: options.preset ?? 'workspace-write' })
    await ctx.plugin(fsObservationPolicy)
    await options.setup?.(ctx)
    // S10: jobs before the tools that start them (bash background) and the job_* tools.
    await ctx.plugin(Jobs, options.jobs ?? {})
    await ctx.plugin(workspaceTools)
    await ctx.plugin(jobTools)
    await ctx.plugin(Ptc, options.ptc ?? {})
    await ctx.plugin(runCodeTool, { spillDir: state?.spill ?? spillFolder(resolve(workspace)) })
    await loadToolModules(ctx, options.toolModules ?? [])
    if (options.mcpConfig !== undefined) {
      // Loaded only here: the MCP SDK and ajv are a third of a host's start-up, for hosts that import no server.
      const [mcpImport, { loadMcpConfig }] = await Promise.all([import('../mcp/mcp-import.ts'), import('../mcp/mcp-config.ts')])
      await ctx.plugin(mcpImport, typeof options.mcpConfig === 'string' ? loadMcpConfig(options.mcpConfig) : options.mcpConfig)
    }
    // cordis refuses service access from a fiber that did not inject it, and the host fiber
    // cannot inject services it installs itself: hand out a child context that injects them.
    let services: Context | undefined
    await ctx.plugin({ name: 'ptc-host-services', inject: [...HOST_SERVICES], apply: (child: Context) => void (services = child) })
    if (!services) throw new Error('ptc-runner: the host services did not start')
    return { ctx: services, workspace, journalFile, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

/**
 * Create `<workspace>/.ptc` with `spill/` and `journal/` (S8), refusing (a `SandboxError`) when
 * one exists as a symlink, a non-directory or a directory owned by another user. `undefined` when
 * the workspace itself does not exist (the sandbox policy reports that).
 */
function prepareStateFolder(workspace: string): { workspace: string; spill: string } | undefined {
  let real: string
  try {
    real = realpathSync(workspace)
  } catch {
    return undefined
  }
  const folder = join(real, STATE_FOLDER)
  for (const dir of [folder, spillFolder(real), journalFolder(real)]) {
    let stat
    try {
      stat = lstatSync(dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      mkdirSync(dir) // Not recursive: the parent was just checked, and mkdir never follows a final symlink.
      stat = lstatSync(dir)
    }
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
  return { workspace: real, spill: spillFolder(real) }
}
