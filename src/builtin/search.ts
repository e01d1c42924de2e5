/**
 * `search` (SPEC S8, S9.6, S11.1–S11.2): a regular-expression search over workspace text files,
 * grouped by file, bounded, with a `search` card when done. The matching is ripgrep's
 * (ripgrep.ts): linear-time, in its own sandboxed process killed at the call's deadline, so no
 * pattern can stall the host. Paths are checked by the sandbox policy first, exactly as for the
 * other fs tools, and other sessions' state under `.ptc` is never entered nor returned.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { SearchCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { isInside, workspaceRelative } from '../workspace/is-inside.ts'
import { STATE_FOLDER, stateFolderRefusal } from '../workspace/state-folder.ts'
import { resolveForCall } from './resolve-for-call.ts'
import { findRipgrep, ripgrepArgs, searchWithRipgrep, unsupportedSyntax } from './ripgrep.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Most matching lines returned; `truncated` says when more exist. */
export const MAX_SEARCH_MATCHES = 200
/** Matching lines longer than this many characters are cut. */
export const MAX_MATCH_CHARS = 300
/** Files larger than this (bytes) are skipped. */
export const MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024
/** The deadline of one search, in ms, unless the caller's (a run's deadline, a cancel) comes first. */
export const SEARCH_TIMEOUT_MS = 60_000

/**
 * Longest pattern, in characters: it is one argument of ripgrep's command line, which Linux caps
 * at 128 KiB (a security review's 1,000,000-character pattern failed as `spawn E2BIG`).
 */
export const MAX_PATTERN_CHARS = 10_000

/** Arguments. */
export const searchParameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATTERN_CHARS, `A search pattern takes at most ${MAX_PATTERN_CHARS} characters; search for a shorter, more general pattern and filter the matches in the script.`)
    .superRefine((pattern, check) => {
      const unsupported = unsupportedSyntax(pattern)
      if (unsupported) check.addIssue({ code: 'custom', message: unsupported })
    })
    .describe('Regular expression in ripgrep\'s (Rust) syntax, like JavaScript\'s but linear-time: no look-around and no backreferences. Matched against each line, e.g. "function \\w+\\(".'),
  path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: the root).'),
  glob: z.string().max(MAX_PATTERN_CHARS, `A glob takes at most ${MAX_PATTERN_CHARS} characters.`).optional().describe('Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.ts".'),
})

/**
 * Canonical value (S9.6): `files` with matches, in path order, each `{path, matches: [{line, text}]}`
 * (`path` relative to the first workspace root with `/` separators, `line` 1-based, `text` the line,
 * cut at 300 characters); `matchCount` returned; `filesSearched`; `truncated` when more than 200
 * lines matched: the search stopped there, so the rest are not returned and `filesSearched` counts
 * only the files with a match up to the stop.
 */
export const searchValue = z.object({
  pattern: z.string(),
  files: z.array(z.object({ path: z.string(), matches: z.array(z.object({ line: z.number().int(), text: z.string() })) })),
  matchCount: z.number().int(),
  filesSearched: z.number().int(),
  truncated: z.boolean(),
})

/** The canonical value of `search`. */
export type SearchValue = z.output<typeof searchValue>

/** Build the tool. */
export function searchTool(ctx: Context): Tool {
  return defineTool({
    name: 'search',
    title: 'Search file contents',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description:
      `Search workspace text files for lines matching a regular expression, grouped by file (at most ${MAX_SEARCH_MATCHES} lines). ` +
      'Narrow with `path` (a file or directory) and `glob` (e.g. "**/*.ts"). Files ignored by .gitignore, hidden files, node_modules and .git are skipped ' +
      '(a glob naming node_modules searches it). Patterns use ripgrep\'s linear-time syntax: no look-around, no backreferences.',
    parameters: searchParameters,
    output: {
      schema: searchValue,
      render: (_args, value) => [{ type: 'text', text: renderSearch(value) }],
    },
    timeoutMs: SEARCH_TIMEOUT_MS,
    isConcurrencySafe: () => true,
    execute: (args, exec) => search(ctx, exec, args),
    presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `Search /${args.pattern}/${args.path ? ` in ${args.path}` : ''}`, kind: 'search' }),
    presentResult: (args, result): SearchCard | undefined => {
      const value = searchValue.safeParse(result.value)
      if (result.isError || !value.success) return undefined
      return { card: 'search', phase: 'completed', query: args.pattern, groups: value.data.files }
    },
  })
}

async function search(ctx: Context, exec: Readonly<ToolExecution>, args: z.output<typeof searchParameters>): Promise<SearchValue> {
  const ripgrep = findRipgrep()
  const roots = ctx.sandboxPolicy.workspaceRoots
  const target = resolveForCall(ctx, exec, args.path ?? '.', 'read')
  const stat = await fs.promises.stat(target).catch(() => undefined)
  if (!stat) throw new WorkspaceToolError('invalid-request', `${args.path} does not exist (resolved to ${target}).`, { path: target })
  const cwd = stat.isDirectory() ? target : path.dirname(target)
  // resolveForCall lets through only the caller's own spill folder under a state folder.
  const ownSpill = roots.some((root) => isInside(path.join(root, STATE_FOLDER), target))
  const named = (dir: string) => args.glob?.includes(dir) === true
  const exclude = [...(named('node_modules') ? [] : ['node_modules/']), ...(named('.git') ? [] : ['.git/']), ...(ownSpill ? [] : [`${STATE_FOLDER}/`])]
  const argv = [ripgrep, ...ripgrepArgs({ pattern: args.pattern, ...(args.glob !== undefined && { glob: args.glob }), maxFileBytes: MAX_SEARCH_FILE_BYTES, exclude }, stat.isDirectory() ? '.' : path.basename(target))]
  const escalation = ctx.bail('permission/escalation', exec)
  // The sandbox shows `.ptc` as an empty folder, so the caller's own spill files (written only by
  // ptc-runner, never by a command) are searched by ripgrep as it is; everything else as `bash` runs.
  const command = ownSpill
    ? { argv, cwd, env: { HOME: process.env.HOME ?? '/' } }
    : await ctx.sandbox.wrap({ argv, cwd, ...(escalation && { policy: escalation }) })
  const outcome = await searchWithRipgrep(command, args.pattern, MAX_SEARCH_MATCHES, exec.signal)
  const files: SearchValue['files'] = []
  let matchCount = 0
  for (const match of outcome.matches) {
    // Defence in depth (S8): whatever ripgrep saw, other sessions' state is never returned.
    if (stateFolderRefusal(roots, match.file, exec.agent)) continue
    const relative = workspaceRelative(roots[0]!, match.file)
    let group = files.at(-1)
    if (group?.path !== relative) files.push((group = { path: relative, matches: [] }))
    group.matches.push({ line: match.line, text: match.text.slice(0, MAX_MATCH_CHARS) })
    matchCount++
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { pattern: args.pattern, files, matchCount, filesSearched: outcome.filesSearched, truncated: outcome.truncated }
}

function renderSearch(value: SearchValue): string {
  if (value.files.length === 0) return `No matches for /${value.pattern}/ in ${value.filesSearched} files.`
  const blocks = value.files.map((file) => `${file.path}\n${file.matches.map((match) => `  ${match.line}: ${match.text}`).join('\n')}`)
  const more = value.truncated ? `\n(stopped at ${MAX_SEARCH_MATCHES} matches; narrow the pattern, path or glob)` : ''
  return `${value.matchCount} matches in ${value.files.length} files:\n${blocks.join('\n')}${more}`
}
