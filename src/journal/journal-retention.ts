/**
 * Journal retention (issue 14 item 4): the journal folder of a state folder keeps at most
 * `maxFiles` journals and `maxBytes` of them in total; the oldest (by modification time) go
 * first. Applied each time a journal is opened there (a host start, a `ptc serve` session), and
 * never to a journal this process still has open (the current session's, or a live MCP session's).
 */
import path from 'node:path'
import { type FolderBounds, pruneOldest } from '../workspace/prune-oldest.ts'

/** How many journals a journal folder keeps: `maxFiles` (the newest first) and `maxBytes` in total; either may be left out. */
export type JournalRetention = FolderBounds

/** Default retention: the newest 100 journals, at most 100 MiB together. */
export const DEFAULT_JOURNAL_RETENTION: Readonly<Required<JournalRetention>> = Object.freeze({ maxFiles: 100, maxBytes: 100 * 1024 * 1024 })

/** The journal files this process has open (absolute paths): retention never removes them. */
const openJournals = new Set<string>()

/** Mark `file` as open (until the returned function is called): {@link pruneJournals} keeps it. */
export function holdJournal(file: string): () => void {
  const absolute = path.resolve(file)
  openJournals.add(absolute)
  return () => void openJournals.delete(absolute)
}

/**
 * Check a retention option.
 * @returns the message saying what is wrong, or `undefined` when it is valid.
 */
export function retentionProblem(retention: JournalRetention): string | undefined {
  if (typeof retention !== 'object' || retention === null) return `journalRetention must be false or {maxFiles?, maxBytes?}; got ${JSON.stringify(retention)}.`
  for (const key of Object.keys(retention)) {
    if (key !== 'maxFiles' && key !== 'maxBytes') return `journalRetention has an unknown key "${key}"; the keys are maxFiles and maxBytes.`
    const value = retention[key]
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) return `journalRetention.${key} must be a whole number ≥ 1, got ${JSON.stringify(value)}.`
  }
  return undefined
}

/**
 * Delete the oldest `*.jsonl` regular files in `folder` past `retention`, keeping every journal
 * this process holds open ({@link holdJournal}) and every path in `keep`. Kept journals count
 * toward the bounds. Symbolic links and other entries are never touched; a file that vanishes or
 * cannot be removed meanwhile is skipped. Returns the paths deleted, oldest first.
 */
export function pruneJournals(folder: string, retention: JournalRetention, keep: readonly string[] = []): string[] {
  return pruneOldest(folder, retention, { accept: (name) => name.endsWith('.jsonl'), keep: [...openJournals, ...keep] })
}
