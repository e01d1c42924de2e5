/**
 * `list_dir` (SPEC S8, S9.6, S11.1–S11.2): the entries of one workspace directory, sorted by name,
 * bounded, with a `search` card (flat path list) when done.
 */
import fs from 'node:fs'
import type { Context } from 'cordis'
import { z } from 'zod'
import { ToolDeniedError } from '../errors/ptc-error.ts'
import type { SearchCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import { openDirectorySync, UnsafePathError } from '../workspace/safe-fs.ts'
import { areaForCall, resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Most entries returned; the rest are counted in `totalEntries`. */
export const MAX_DIR_ENTRIES = 1000

/** Arguments: `path` defaults to the workspace root. */
export const listDirParameters = z.strictObject({
  path: z.string().optional().describe('Directory, relative to the workspace root (default: the root).'),
})

/**
 * Canonical value (S9.6): `path` the absolute, symlink-free directory; `entries` sorted by name,
 * each `{name, type, size?}` (`size` in bytes, files only; `type` of the entry itself, so a
 * symbolic link is `symlink`); `totalEntries` before the cap; `truncated` when capped.
 */
export const listDirValue = z.object({
  path: z.string(),
  entries: z.array(z.object({ name: z.string(), type: z.enum(['file', 'directory', 'symlink', 'other']), size: z.number().int().optional() })),
  totalEntries: z.number().int(),
  truncated: z.boolean(),
})

/** The canonical value of `list_dir`. */
export type ListDirValue = z.output<typeof listDirValue>

/** Build the tool. */
export function listDirTool(ctx: Context): Tool {
  return defineTool({
    name: 'list_dir',
    title: 'List a directory',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: `List the entries of a workspace directory (name, type, size), sorted by name, at most ${MAX_DIR_ENTRIES}.`,
    parameters: listDirParameters,
    output: {
      schema: listDirValue,
      render: (_args, value) => [{ type: 'text', text: renderListing(value) }],
    },
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      const dir = resolveForCall(ctx, exec, args.path ?? '.', 'read')
      // S8: opened without following a symlink swapped in since the check; listed through the fd.
      let fd: number
      try {
        fd = openDirectorySync(dir, areaForCall(ctx, exec))
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          throw new WorkspaceToolError('invalid-request', `${args.path ?? '.'} is not an existing directory (resolved to ${dir}).`, { path: dir })
        }
        if (UnsafePathError.isInstance(error)) throw new ToolDeniedError(`${(error as Error).message}; refused.`, { path: dir })
        throw error
      }
      let entries
      let dirents
      try {
        const base = `/proc/self/fd/${fd}`
        dirents = await fs.promises.readdir(base, { withFileTypes: true })
        exec.signal.throwIfAborted() // Cancelled while reading: skip the sort of a large folder.
        dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        const kept = dirents.slice(0, MAX_DIR_ENTRIES)
        entries = await Promise.all(
          kept.map(async (dirent) => {
            const type = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'directory' : dirent.isFile() ? 'file' : 'other'
            if (type !== 'file') return { name: dirent.name, type } as const
            const size = await fs.promises.lstat(`${base}/${dirent.name}`).then((stat) => stat.size, () => undefined)
            return { name: dirent.name, type, ...(size !== undefined && { size }) } as const
          }),
        )
      } finally {
        fs.closeSync(fd)
      }
      return { path: dir, entries, totalEntries: dirents.length, truncated: dirents.length > entries.length }
    },
    presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `List ${args.path ?? '.'}`, kind: 'search', locations: [{ path: args.path ?? '.' }] }),
    presentResult: (_args, result): SearchCard | undefined => {
      const value = listDirValue.safeParse(result.value)
      if (result.isError || !value.success) return undefined
      return { card: 'search', phase: 'completed', query: value.data.path, paths: value.data.entries.map(entryLabel) }
    },
  })
}

function entryLabel(entry: ListDirValue['entries'][number]): string {
  return entry.type === 'directory' ? `${entry.name}/` : entry.type === 'symlink' ? `${entry.name}@` : entry.name
}

function renderListing(value: ListDirValue): string {
  if (value.entries.length === 0) return `${value.path} is empty.`
  const lines = value.entries.map((entry) => (entry.size !== undefined ? `${entryLabel(entry)} (${entry.size} bytes)` : entryLabel(entry)))
  const more = value.truncated ? `\n(${value.totalEntries - value.entries.length} more entries not shown)` : ''
  return `${value.path}:\n${lines.join('\n')}${more}`
}
