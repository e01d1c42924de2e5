/**
 * The flags every host-starting command shares (`--workspace`, `--tools`, `--mcp-config`,
 * `--preset`, `--builtins`), their help text, and their translation into {@link HostOptions}. Light on
 * purpose: only the permission presets are loaded, and only when `--preset` is given.
 */
import { statSync } from 'node:fs'
import { BUILTIN_GROUPS, parseBuiltinsList } from '../builtin/builtin-groups.ts'
import type { HostOptions } from '../host/create-host.ts'
import { UsageError } from './usage-error.ts'

/** `--workspace DIR`: the root every file tool and `bash` is confined to (an existing directory). */
export const WORKSPACE_FLAG = { workspace: { type: 'string' } } as const
/** `--tools MODULE`, repeatable: tool plugin modules. */
export const TOOLS_FLAG = { tools: { type: 'string', multiple: true } } as const
/** `--mcp-config FILE`: MCP servers whose tools are imported. */
export const MCP_CONFIG_FLAG = { 'mcp-config': { type: 'string' } } as const
/** `--preset NAME`: sandbox mode and approval policy. */
export const PRESET_FLAG = { preset: { type: 'string' } } as const

/** `--builtins LIST`: the built-in tool groups installed (`fs,bash,jobs`, any of them, or `none`). */
export const BUILTINS_FLAG = { builtins: { type: 'string' } } as const

/** All five, for commands that start a full host. */
export const HOST_FLAGS = { ...WORKSPACE_FLAG, ...TOOLS_FLAG, ...MCP_CONFIG_FLAG, ...PRESET_FLAG, ...BUILTINS_FLAG } as const

/** Help text for {@link HOST_FLAGS}, appended to each command's details. */
export const HOST_FLAGS_HELP = `--workspace DIR    the root every file tool and bash is confined to (default: the current
                   directory); it must be an existing directory.
--tools MODULE     load a tool plugin module (repeatable).
--mcp-config FILE  import the tools of the MCP servers in FILE, as name__tool:
                   {"mcpServers": {name: {command, args?, env?, cwd?, parallel?, timeoutMs?,
                   include?: [tool...], exclude?: [tool...], rename?: {tool: new name}}}}.
--preset NAME      read-only | workspace-write (default) | danger-full-access: the sandbox mode and
                   when to ask. Approval prompts appear when stdin is a terminal; otherwise every ask
                   is denied.
--builtins LIST    the built-in tool groups, comma separated: ${BUILTIN_GROUPS.join(', ')} (default all
                   three), or none (only --tools and --mcp-config tools). fs: read_file, write_file,
                   edit_file, list_dir, glob, search; jobs: job_list, job_read, job_kill.`

/** The values {@link hostOptionsFrom} reads. */
export interface HostFlagValues {
  workspace?: string
  tools?: string[]
  'mcp-config'?: string
  preset?: string
  builtins?: string
}

/**
 * The workspace folder named by `--workspace` (default `.`).
 * @throws UsageError when it does not exist or is not a directory (nothing is created there).
 */
export function workspaceFrom(value: string | undefined): string {
  const dir = value ?? '.'
  let isDirectory = false
  try {
    isDirectory = statSync(dir).isDirectory()
  } catch {
    // missing or unreadable: reported below
  }
  if (!isDirectory) throw new UsageError(`--workspace ${dir} is not an existing directory. Name a folder that exists.`)
  return dir
}

/**
 * The groups named by `--builtins` (undefined when absent: the host's default, all three).
 * @throws UsageError naming the allowed values for an empty list or an unknown group.
 */
export function builtinsFrom(value: string | undefined): HostOptions['builtins'] {
  if (value === undefined) return undefined
  try {
    return parseBuiltinsList(value)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/**
 * The {@link Command.precheck} of host-starting commands: the workspace exists, `--builtins` is valid.
 * @throws UsageError
 */
export function checkHostFlags(values: { workspace?: string; builtins?: string }): void {
  workspaceFrom(values.workspace)
  builtinsFrom(values.builtins)
}

/**
 * A whole number from `min` (default 1) to `max` (default `Number.MAX_SAFE_INTEGER`, past which
 * a number is no longer exact) from a flag written in decimal digits, or undefined when the flag
 * is absent.
 * @throws UsageError when the text is not one, saying the range.
 */
export function positiveInt(text: string | undefined, flag: string, min = 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined
  // Decimal digits only: Number() would also take " 16", "0x10" and "1e3".
  const value = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
  if (Number.isInteger(value) && value >= min && value <= max) return value
  const range = max !== Number.MAX_SAFE_INTEGER || value > max ? `whole number from ${min} to ${max}` : min === 1 ? 'positive whole number' : `whole number ≥ ${min}`
  throw new UsageError(`--${flag} takes a ${range}, got "${text}".`)
}

/**
 * Host options from the shared flags. The journal is left to the command (`run` keeps one).
 * @throws UsageError for a missing workspace or an unknown preset.
 */
export async function hostOptionsFrom(values: HostFlagValues): Promise<HostOptions> {
  const workspace = workspaceFrom(values.workspace)
  const preset = values.preset
  if (preset !== undefined) {
    const { isPermissionPresetName, PERMISSION_PRESET_NAMES } = await import('../policy/permission-presets.ts')
    if (!isPermissionPresetName(preset)) throw new UsageError(`--preset takes one of ${PERMISSION_PRESET_NAMES.join(', ')}, got "${preset}".`)
  }
  const builtins = builtinsFrom(values.builtins)
  return {
    workspace,
    ...(builtins !== undefined && { builtins }),
    ...(preset !== undefined && { preset: preset as NonNullable<HostOptions['preset']> }),
    toolModules: values.tools ?? [],
    ...(values['mcp-config'] !== undefined && { mcpConfig: values['mcp-config'] }),
  }
}
