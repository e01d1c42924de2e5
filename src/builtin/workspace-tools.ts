/**
 * The workspace tools plugin (SPEC S8): registers read_file, write_file, edit_file, list_dir,
 * glob, search and bash (any of the two groups, see `Config`), and describes what each call will touch on `permission/access` (raw
 * paths it writes, whether it asks for network) so the permission presets can decide (S3.1: the
 * tools hold no policy). Install after `SandboxPolicy` and `Sandbox`.
 */
import type { Context } from 'cordis'
import type { Tool } from '../tools/define-tool.ts'
import { bashTool } from './bash.ts'
import { editFileTool } from './edit-file.ts'
import { globTool } from './glob.ts'
import { listDirTool } from './list-dir.ts'
import { readFileTool } from './read-file.ts'
import { searchTool } from './search.ts'
import type { AccessRequest } from '../workspace/workspace-events.ts'
import { writeFileTool } from './write-file.ts'

/** Plugin name. */
export const name = 'workspace-tools'
/** Services the tools read at the moment of use (S8). */
export const inject = ['tools', 'sandboxPolicy', 'sandbox']

/** Names of the tools this plugin registers. */
export const WORKSPACE_TOOL_NAMES = ['bash', 'edit_file', 'glob', 'list_dir', 'read_file', 'search', 'write_file'] as const

/** What a call of one of these tools will touch, from its (validated, frozen) arguments. */
export function describeAccess(toolName: string, args: unknown): AccessRequest | undefined {
  const record = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>
  switch (toolName) {
    case 'write_file':
    case 'edit_file':
      return typeof record.path === 'string' ? { writes: [record.path] } : undefined
    case 'bash':
      return record.network === true ? { network: true } : undefined
    default:
      return undefined
  }
}

/**
 * Which of the tools to register (issue 14 item 4; each default `true`): `fs` the six file tools,
 * `bash` the shell, `background` bash's `background: true` (only useful with the job tools that
 * read such a job, so the host turns it off without them).
 */
export interface Config {
  fs?: boolean
  bash?: boolean
  background?: boolean
}

/**
 * Register the tools `config` selects (owned by this plugin's fiber: disposing it unregisters
 * them, S1.4) and answer `permission/access` for calls of them.
 * @throws ToolDefinitionError when a tool of the same name is already registered.
 */
export function apply(ctx: Context, config: Config = {}) {
  const tools: Tool[] = [
    ...(config.fs === false ? [] : [readFileTool(ctx), writeFileTool(ctx), editFileTool(ctx), listDirTool(ctx), globTool(ctx), searchTool(ctx)]),
    ...(config.bash === false ? [] : [bashTool(ctx, { background: config.background !== false })]),
  ]
  const mine = new Map<string, Tool>()
  for (const tool of tools) {
    ctx.tools.register(tool)
    mine.set(tool.name, tool)
  }
  ctx.on('permission/access', (execution) => {
    // Asked for every call: another tool's name is answered without touching the registry.
    const own = mine.get(execution.name)
    if (own === undefined) return undefined
    // Answer only for our own registrations, not a same-named tool of another plugin.
    return ctx.tools.get(execution.name) === own ? describeAccess(execution.name, execution.arguments) : undefined
  })
}
