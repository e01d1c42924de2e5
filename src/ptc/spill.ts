/**
 * The model-facing spill (SPEC S9.7): only the outer `run_code` result and logs pass through
 * output caps; text over its cap is written whole to a file in the spill folder and the model
 * gets a preview plus the path. Files are written atomically (temp file + rename), so a reader
 * never sees half a file.
 */
import { mkdirSync, realpathSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { type FolderBounds, pruneOldest } from '../workspace/prune-oldest.ts'
import { writeFileAtomicSync } from '../workspace/safe-fs.ts'

/**
 * What one agent's spill folder keeps: the newest 100 files, at most 100 MiB together (as the
 * journal folder). An operator's trial spilled 150 results of 3 MB into 780 MB that nothing
 * removed; a model reads a spill soon after it is told its path.
 */
export const SPILL_BOUNDS: Readonly<Required<FolderBounds>> = Object.freeze({ maxFiles: 100, maxBytes: 100 * 1024 * 1024 })

/**
 * Keep the first `maxChars` characters (UTF-16 units) of `text`, one fewer when the cut would
 * split a surrogate pair, with how many were cut. Pure.
 */
export function capText(text: string, maxChars: number): { text: string; cut: number } {
  if (text.length <= maxChars) return { text, cut: 0 }
  const last = text.charCodeAt(maxChars - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars
  return { text: text.slice(0, end), cut: text.length - end }
}

/**
 * Write `text` to `<dir>/<fileName>` atomically and return the path written. `fileName` is reduced
 * to `[A-Za-z0-9._-]` so a call id cannot steer the write outside `dir`. `root` (default `dir`) is
 * the spill folder the write must stay in: it is created if missing, realpath'd, and `dir` is
 * created below it and the file written through safe-fs (S8): no symlink is followed at any
 * component (a `bash` job that planted `ln -s /outside <root>/x` cannot redirect the write), and a
 * symlink at the final name is replaced, never written through.
 * @throws the file system's error when the folder cannot be created or written, or
 *   `UnsafePathError` when a component is a symlink.
 */
export function writeSpill(dir: string, fileName: string, text: string, root: string = dir): string {
  mkdirSync(root, { recursive: true })
  const realRoot = realpathSync(root)
  const safe = fileName.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
  return writeFileAtomicSync(join(realRoot, relative(resolve(root), resolve(dir)), safe), { roots: [realRoot] }, text)
}

/**
 * Bound the spill folder holding `written` (paths {@link writeSpill} returned, all in one folder)
 * to {@link SPILL_BOUNDS}, oldest first, never deleting `written`. Never throws.
 */
export function pruneSpills(written: readonly string[]): void {
  if (written.length === 0) return
  pruneOldest(dirname(written[0]!), SPILL_BOUNDS, { keep: written })
}
