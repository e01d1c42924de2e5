/**
 * `glob` (SPEC S8, S9.6, S11.1–S11.2): workspace paths matching a glob pattern, via Node's own
 * `fs.promises.glob`, sorted and bounded (the walk stops at the cap), with a `search` card (flat path list).
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { SearchCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { workspaceRelative } from '../workspace/is-inside.ts'
import { stateFolderRefusal } from '../workspace/state-folder.ts'
import { resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Most paths returned by glob. */
export const MAX_GLOB_RESULTS = 1000

/** Directories skipped unless the pattern names them. */
export const SKIPPED_DIRECTORIES = ['node_modules', '.git'] as const

/** Arguments. */
export const globParameters = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern relative to the workspace root, e.g. "src/**/*.ts". node_modules and .git are skipped unless named.'),
})

/**
 * Canonical value (S9.6): `root` the absolute directory the pattern was matched from (the first
 * workspace root); `paths` sorted, relative to `root` with `/` separators (usable as `path`
 * arguments of the other tools); `truncated` when more than the cap (1000) matched: the walk then
 * stopped at the cap, so `paths` holds the first 1000 found in walk order (sorted), not the first
 * 1000 of every match sorted.
 */
export const globValue = z.object({
  root: z.string(),
  paths: z.array(z.string()),
  truncated: z.boolean(),
})

/** The canonical value of `glob`. */
export type GlobValue = z.output<typeof globValue>

/**
 * Walk `pattern` from `cwd` (a resolved directory) and yield matches (relative, `/`-separated),
 * skipping `SKIPPED_DIRECTORIES` unless the pattern names them. Patterns that are absolute or
 * contain `..` segments are refused, so a walk never leaves `cwd`.
 * @throws WorkspaceToolError (`invalid-request`) for such patterns.
 */
export async function* walkGlob(pattern: string, cwd: string, signal: AbortSignal, filesOnly = false): AsyncGenerator<string> {
  if (pattern.startsWith('/') || pattern.split(/[\\/]/).includes('..')) {
    throw new WorkspaceToolError('invalid-request', `glob pattern ${JSON.stringify(pattern)} must be relative and stay inside the workspace (no leading "/" and no ".." segments).`, { pattern })
  }
  const skipped = SKIPPED_DIRECTORIES.filter((dir) => !pattern.includes(dir))
  const exclude = (dirent: { name: string; isDirectory(): boolean }) => dirent.isDirectory() && (skipped as readonly string[]).includes(dirent.name)
  for await (const dirent of fs.glob(pattern, { cwd, exclude, withFileTypes: true })) {
    if (signal.aborted) throw signal.reason
    if (filesOnly && !dirent.isFile()) continue
    const absolute = `${dirent.parentPath}/${dirent.name}`
    yield workspaceRelative(cwd, absolute)
  }
}

/** Build the tool. */
export function globTool(ctx: Context): Tool {
  return defineTool({
    name: 'glob',
    title: 'Find files by pattern',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: `Find workspace files and directories whose path matches a glob pattern ("**/*.ts", "src/*/index.*"). Returns sorted paths relative to the workspace root, at most ${MAX_GLOB_RESULTS}.`,
    parameters: globParameters,
    output: {
      schema: globValue,
      render: (_args, value) => [{ type: 'text', text: value.paths.length === 0 ? 'No paths match.' : value.paths.join('\n') + (value.truncated ? `\n(more than ${MAX_GLOB_RESULTS} matches; narrow the pattern)` : '') }],
    },
    isConcurrencySafe: () => true,
    execute: (args, exec) => glob(ctx, exec, args.pattern),
    presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `Glob ${args.pattern}`, kind: 'search' }),
    presentResult: (args, result): SearchCard | undefined => {
      const value = globValue.safeParse(result.value)
      if (result.isError || !value.success) return undefined
      return { card: 'search', phase: 'completed', query: args.pattern, paths: value.data.paths }
    },
  })
}

async function glob(ctx: Context, exec: Readonly<ToolExecution>, pattern: string): Promise<GlobValue> {
  const root = resolveForCall(ctx, exec, '.', 'read')
  const paths: string[] = []
  const roots = ctx.sandboxPolicy.workspaceRoots
  let truncated = false
  for await (const match of walkGlob(pattern, root, exec.signal)) {
    // Other sessions' journals and spills are not listed (S8), not even by name.
    if (stateFolderRefusal(roots, path.join(root, match), exec.agent)) continue
    if (paths.length === MAX_GLOB_RESULTS) {
      // One match past the cap is enough to know there are more: stop walking (leaving the loop
      // closes the walk), however large the tree.
      truncated = true
      break
    }
    paths.push(match)
  }
  paths.sort()
  return { root, paths, truncated }
}
