/**
 * `search` (SPEC S8, S9.6, S11.1–S11.2): a regular-expression search over workspace text files,
 * grouped by file, bounded, with a `search` card when done.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { SearchCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { walkGlob } from './glob.ts'
import { splitLines } from './read-file.ts'
import { workspaceRelative } from '../workspace/is-inside.ts'
import { openFileSync, readFd, type SafeArea } from '../workspace/safe-fs.ts'
import { looksBinary } from './file-snapshot.ts'
import { areaForCall, resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Most matching lines returned; `truncated` says when more exist. */
export const MAX_SEARCH_MATCHES = 200
/** Matching lines longer than this many characters are cut. */
export const MAX_MATCH_CHARS = 300
/** Files larger than this (bytes) are skipped. */
export const MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024

/** Arguments. */
export const searchParameters = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression, matched against each line, e.g. "function \\w+\\(".'),
  path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: the root).'),
  glob: z.string().optional().describe('Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.ts".'),
})

/**
 * Canonical value (S9.6): `files` with matches, in path order, each `{path, matches: [{line, text}]}`
 * (`path` relative to the first workspace root with `/` separators, `line` 1-based, `text` the line,
 * cut at 300 characters); `matchCount` returned; `filesSearched`; `truncated` when more than 200
 * lines matched (the rest are not returned).
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
      'Narrow with `path` (a file or directory) and `glob` (e.g. "**/*.ts"). node_modules and .git are skipped.',
    parameters: searchParameters,
    output: {
      schema: searchValue,
      render: (_args, value) => [{ type: 'text', text: renderSearch(value) }],
    },
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
  let regex: RegExp
  try {
    regex = new RegExp(args.pattern)
  } catch (error) {
    throw new WorkspaceToolError('invalid-request', `pattern is not a valid regular expression: ${(error as Error).message}`, { pattern: args.pattern })
  }
  const workspaceRoot = ctx.sandboxPolicy.workspaceRoots[0]!
  const target = resolveForCall(ctx, exec, args.path ?? '.', 'read')
  const stat = await fs.promises.stat(target).catch(() => undefined)
  if (!stat) throw new WorkspaceToolError('invalid-request', `${args.path} does not exist (resolved to ${target}).`, { path: target })
  let candidates: string[]
  if (stat.isFile()) {
    candidates = [target]
  } else {
    candidates = []
    for await (const match of walkGlob(args.glob ?? '**/*', target, exec.signal, true)) candidates.push(path.join(target, match))
    candidates.sort()
  }
  const area = areaForCall(ctx, exec)
  const files: SearchValue['files'] = []
  let matchCount = 0
  let filesSearched = 0
  let truncated = false
  for (const candidate of candidates) {
    if (exec.signal.aborted) throw exec.signal.reason
    let file: string
    try {
      file = resolveForCall(ctx, exec, candidate, 'read') // A symlink leading out is skipped, never read.
    } catch {
      continue
    }
    const bytes = await readSmallFile(file, area)
    if (!bytes || looksBinary(bytes)) continue
    filesSearched++
    const matches: { line: number; text: string }[] = []
    const lines = splitLines(bytes.toString('utf8'))
    for (let index = 0; index < lines.length; index++) {
      if (!regex.test(lines[index]!)) continue
      if (matchCount === MAX_SEARCH_MATCHES) {
        truncated = true
        break
      }
      matchCount++
      matches.push({ line: index + 1, text: lines[index]!.slice(0, MAX_MATCH_CHARS) })
    }
    if (matches.length) files.push({ path: workspaceRelative(workspaceRoot, file), matches })
    if (truncated) break
  }
  return { pattern: args.pattern, files, matchCount, filesSearched, truncated }
}

/**
 * The bytes of a regular file of at most `MAX_SEARCH_FILE_BYTES`, read through a safe open (S8: no
 * symlink followed, a FIFO or device never opened for blocking I/O); `undefined` to skip it.
 */
async function readSmallFile(file: string, area: SafeArea): Promise<Buffer | undefined> {
  let opened
  try {
    opened = openFileSync(file, area, 'read')
  } catch {
    return undefined
  }
  try {
    if (!opened.stat.isFile() || opened.stat.size > MAX_SEARCH_FILE_BYTES) return undefined
    const bytes = await readFd(opened.fd, MAX_SEARCH_FILE_BYTES)
    return bytes.length > MAX_SEARCH_FILE_BYTES ? undefined : bytes
  } catch {
    return undefined
  } finally {
    fs.closeSync(opened.fd)
  }
}

function renderSearch(value: SearchValue): string {
  if (value.files.length === 0) return `No matches for /${value.pattern}/ in ${value.filesSearched} files.`
  const blocks = value.files.map((file) => `${file.path}\n${file.matches.map((match) => `  ${match.line}: ${match.text}`).join('\n')}`)
  const more = value.truncated ? `\n(stopped at ${MAX_SEARCH_MATCHES} matches; narrow the pattern, path or glob)` : ''
  return `${value.matchCount} matches in ${value.files.length} files:\n${blocks.join('\n')}${more}`
}
