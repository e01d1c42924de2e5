/**
 * Bounded folders of the state folder (S8: the journal folder, each agent's spill folder): keep
 * the newest regular files within a count and a total size, delete the oldest (by modification
 * time) past them. Symbolic links and other entries are never touched.
 */
import fs from 'node:fs'
import path from 'node:path'

/** How many files a folder keeps. Either bound may be left out (no bound). */
export interface FolderBounds {
  /** Most files kept, the newest first (a whole number ≥ 1). */
  maxFiles?: number
  /** Most bytes the files may take in total (a whole number ≥ 1); the newest that fit are kept. */
  maxBytes?: number
}

/** Which entries count, and which must stay. */
export interface PruneOptions {
  /** Whether an entry of this name is one of the bounded files (default: every regular file). */
  accept?: (name: string) => boolean
  /** Files (any form of path) never deleted; they count toward the bounds. */
  keep?: Iterable<string>
}

/**
 * Delete the oldest accepted regular files in `folder` past `bounds`, keeping `options.keep`.
 * Once one file does not fit, every older one goes too. A file that vanishes or cannot be removed
 * meanwhile is skipped. Never throws (a folder that cannot be read prunes nothing). Returns the
 * paths deleted, oldest first.
 */
export function pruneOldest(folder: string, bounds: FolderBounds, options: PruneOptions = {}): string[] {
  const held = new Set([...(options.keep ?? [])].map((file) => path.resolve(file)))
  let names: string[]
  try {
    names = fs.readdirSync(folder)
  } catch {
    return []
  }
  const files: { file: string; size: number; mtimeMs: number; held: boolean }[] = []
  for (const name of names) {
    if (options.accept && !options.accept(name)) continue
    const file = path.resolve(folder, name)
    try {
      const stat = fs.lstatSync(file)
      if (stat.isFile()) files.push({ file, size: stat.size, mtimeMs: stat.mtimeMs, held: held.has(file) })
    } catch {
      // vanished meanwhile
    }
  }
  // Newest first (ties by name: journal and spill names start with the time); held files always stay.
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || b.file.localeCompare(a.file))
  let count = 0
  let bytes = 0
  let full = false
  const doomed: string[] = []
  for (const entry of [...files.filter((f) => f.held), ...files.filter((f) => !f.held)]) {
    full ||= !entry.held && !((bounds.maxFiles === undefined || count + 1 <= bounds.maxFiles) && (bounds.maxBytes === undefined || bytes + entry.size <= bounds.maxBytes))
    if (entry.held || !full) {
      count += 1
      bytes += entry.size
    } else {
      doomed.push(entry.file)
    }
  }
  const deleted: string[] = []
  for (const file of doomed.reverse()) {
    try {
      fs.unlinkSync(file)
      deleted.push(file)
    } catch {
      // removed by someone else, or not ours to remove: leave it
    }
  }
  return deleted
}
