/**
 * `glob` (SPEC S8, S9.6, S11.1–S11.2): workspace paths matching a glob pattern, via Node's own
 * `fs.promises.glob`, sorted and bounded (the walk stops at the cap), with a `search` card (flat path list).
 */
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { SearchCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { workspaceRelative } from '../workspace/is-inside.ts'
import { resolvePathAgainst } from '../workspace/resolve-path.ts'
import { stateFolderRefusal } from '../workspace/state-folder.ts'
import { braceExpansions } from './brace-expansions.ts'
import { callOptions, resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Most paths returned by glob. */
export const MAX_GLOB_RESULTS = 1000

/**
 * Most patterns a glob's braces may expand to (`{a,b}` alternatives multiply): Node's walk pays
 * for each one on the host's thread (`brace-expansions.ts`).
 */
export const MAX_GLOB_EXPANSIONS = 256

/**
 * Most `*` wildcards in one path segment (`**` segments aside). Node's matcher backtracks on each
 * name, synchronously: on a 200-character name, measured 2026-12-04, three took 13 ms, four
 * 338 ms and five 13 s of the host's thread (a review stalled every session for 44 s with six).
 */
export const MAX_SEGMENT_STARS = 3

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
 * Walk `pattern` from `cwd` (a resolved, symlink-free directory) and yield matches (relative,
 * `/`-separated), skipping `SKIPPED_DIRECTORIES` unless the pattern names them. Patterns that are
 * absolute or contain `..` segments are refused. Symbolic links are never descended through (S8):
 * a symlink is yielded as an entry itself, but nothing is yielded from, and the walk goes no
 * deeper than, a directory that `symlinkFree` (called once per absolute directory below `cwd`)
 * rejects. Node's `fs.glob` follows symlinks named literally in a pattern (`link/**`, `link/*`)
 * without consulting `exclude`, so every match's directory is checked as well.
 * @throws WorkspaceToolError (`invalid-request`) for such patterns, for one whose braces expand
 *   to more than {@link MAX_GLOB_EXPANSIONS} patterns, and for one with more than
 *   {@link MAX_SEGMENT_STARS} `*` in a path segment.
 */
export async function* walkGlob(pattern: string, cwd: string, signal: AbortSignal, symlinkFree: (directory: string) => boolean, filesOnly = false): AsyncGenerator<string> {
  if (pattern.startsWith('/') || pattern.split(/[\\/]/).includes('..')) {
    throw new WorkspaceToolError('invalid-request', `glob pattern ${JSON.stringify(pattern)} must be relative and stay inside the workspace (no leading "/" and no ".." segments).`, { pattern })
  }
  if (braceExpansions(pattern, MAX_GLOB_EXPANSIONS) > MAX_GLOB_EXPANSIONS) {
    throw new WorkspaceToolError(
      'invalid-request',
      `glob pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)} expands to more than ${MAX_GLOB_EXPANSIONS} patterns (each {a,b} group multiplies them); use fewer brace groups, a wildcard such as * or **, or several glob calls.`,
      { pattern },
    )
  }
  const starry = pattern.split('/').find((segment) => segment !== '**' && (segment.match(/\*+/g)?.length ?? 0) > MAX_SEGMENT_STARS)
  if (starry !== undefined) {
    throw new WorkspaceToolError(
      'invalid-request',
      `glob pattern segment ${JSON.stringify(starry.slice(0, 100))} has more than ${MAX_SEGMENT_STARS} * wildcards, which matching would pay for on every name; use at most ${MAX_SEGMENT_STARS} a segment (search finds text inside files).`,
      { pattern },
    )
  }
  const skipped = SKIPPED_DIRECTORIES.filter((dir) => !pattern.includes(dir))
  const verdicts = new Map<string, boolean>()
  const symlinkFreeDir = (dir: string) => dir === cwd || (verdicts.get(dir) ?? verdicts.set(dir, symlinkFree(dir)).get(dir)!)
  // `exclude` may get a `parentPath` relative to `cwd` ("." for `**`). `cwd` itself (matched by
  // `**`) is reached from its parent, outside the walk: always admitted.
  const reachable = (dirent: Dirent) => {
    const parent = path.resolve(cwd, dirent.parentPath)
    return path.join(parent, dirent.name) === cwd || symlinkFreeDir(parent)
  }
  const exclude = (dirent: Dirent) => !reachable(dirent) || (dirent.isDirectory() && (skipped as readonly string[]).includes(dirent.name))
  for await (const dirent of fs.glob(pattern, { cwd, exclude, withFileTypes: true })) {
    if (signal.aborted) throw signal.reason
    if (!reachable(dirent)) continue
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
  // S8: a directory is walked only if resolving it at this moment gives back the same path, i.e.
  // no symlink on the way (one leading out is refused by the resolution itself). The state folder
  // rule is applied to each match below, so the walk may pass through `.ptc` to the own spills.
  const options = callOptions(ctx, exec)
  const symlinkFree = (directory: string) => {
    const resolution = resolvePathAgainst(options, workspaceRelative(root, directory), 'read')
    return resolution.ok && resolution.path === directory
  }
  for await (const match of walkGlob(pattern, root, exec.signal, symlinkFree)) {
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
