/**
 * Which built-in tool groups a host installs (issue 14 item 4, issue 11 item 5): `fs` (read_file,
 * write_file, edit_file, list_dir, glob, search), `bash`, `jobs` (job_list, job_read, job_kill).
 * A group left out is neither registered nor declared to scripts. Light on purpose (no tool is
 * loaded here): the CLI parses `--builtins` with it before starting anything.
 */
import { HostOptionsError } from '../errors/host-options-error.ts'

/** Every built-in tool group, in the order `--builtins` lists them. */
export const BUILTIN_GROUPS = ['fs', 'bash', 'jobs'] as const

/** One built-in tool group. */
export type BuiltinGroup = (typeof BUILTIN_GROUPS)[number]

/**
 * The `builtins` host option: any subset of {@link BUILTIN_GROUPS} (an empty list is the same as
 * `'none'`), or `'none'` for a host that brings its own tools. Default: all three.
 */
export type BuiltinsOption = readonly BuiltinGroup[] | 'none'

/** The tools each group registers. */
export const BUILTIN_GROUP_TOOLS: Readonly<Record<BuiltinGroup, readonly string[]>> = {
  fs: ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'search'],
  bash: ['bash'],
  jobs: ['job_list', 'job_read', 'job_kill'],
}

/**
 * The set of groups `option` selects (`undefined`: all three).
 * @throws HostOptionsError when `option` is neither `'none'` nor an array of known group names.
 */
export function builtinGroups(option: BuiltinsOption | undefined): ReadonlySet<BuiltinGroup> {
  if (option === undefined) return new Set(BUILTIN_GROUPS)
  if (option === 'none') return new Set()
  if (!Array.isArray(option)) {
    throw new HostOptionsError(`builtins must be 'none' or an array of ${BUILTIN_GROUPS.map((g) => `'${g}'`).join(', ')}; got ${JSON.stringify(option)}.`)
  }
  const unknown = option.filter((group) => !(BUILTIN_GROUPS as readonly unknown[]).includes(group))
  if (unknown.length > 0) {
    throw new HostOptionsError(`unknown built-in tool group ${unknown.map((g) => JSON.stringify(g)).join(', ')}; the groups are ${BUILTIN_GROUPS.join(', ')} (or 'none').`, { unknown })
  }
  return new Set(option)
}

/**
 * Parse the text of `--builtins`: `none`, or group names separated by commas (`fs,jobs`).
 * @throws HostOptionsError naming the allowed values when the text is empty or names an unknown group.
 */
export function parseBuiltinsList(text: string): BuiltinsOption {
  const trimmed = text.trim()
  if (trimmed === 'none') return 'none'
  const names = trimmed.split(',').map((name) => name.trim())
  if (trimmed === '' || names.some((name) => name === '')) {
    throw new HostOptionsError(`--builtins takes none or a comma-separated list of ${BUILTIN_GROUPS.join(', ')}; got "${text}".`)
  }
  const unknown = names.filter((name) => !(BUILTIN_GROUPS as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw new HostOptionsError(`--builtins: unknown group ${unknown.map((name) => `"${name}"`).join(', ')}; use none or a comma-separated list of ${BUILTIN_GROUPS.join(', ')}.`)
  }
  return [...new Set(names)] as BuiltinGroup[]
}
