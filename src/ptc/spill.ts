/**
 * The model-facing spill (SPEC S9.7): only the outer `run_code` result and logs pass through
 * output caps; text over its cap is written whole to a file in the spill folder and the model
 * gets a preview plus the path. Files are written atomically (temp file + rename), so a reader
 * never sees half a file.
 */
import { lstatSync, mkdirSync, readdirSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs'
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
 * Agent folders the spill folder keeps, the most recently written first: every MCP session has
 * its own, and a re-test of the trials found a server's spill folder growing by one a session.
 */
export const MAX_SPILL_FOLDERS = 100

/**
 * Bound the agent folder holding `written` (paths {@link writeSpill} returned for `root`, all in
 * one agent folder directly under it) to {@link SPILL_BOUNDS}, oldest first, never deleting
 * `written`; then remove whole agent folders of `root` past the newest {@link MAX_SPILL_FOLDERS}
 * (by modification time), never the writer's own. Nothing outside `root` is touched: written
 * files that are not in a folder directly under it prune nothing. Symbolic links are never
 * followed or removed. Never throws.
 */
export function pruneSpills(root: string, written: readonly string[]): void {
  if (written.length === 0) return
  const folder = dirname(written[0]!)
  let realRoot: string
  try {
    realRoot = realpathSync(root)
  } catch {
    return
  }
  if (dirname(folder) !== realRoot || written.some((file) => dirname(file) !== folder)) return
  pruneOldest(folder, SPILL_BOUNDS, { keep: written })
  let folders: { path: string; mtimeMs: number }[]
  try {
    folders = readdirSync(realRoot)
      .map((name) => join(realRoot, name))
      .flatMap((path) => {
        const stat = lstatSync(path, { throwIfNoEntry: false })
        return stat?.isDirectory() && path !== folder ? [{ path, mtimeMs: stat.mtimeMs }] : []
      })
  } catch {
    return
  }
  folders.sort((a, b) => b.mtimeMs - a.mtimeMs)
  for (const old of folders.slice(MAX_SPILL_FOLDERS - 1)) removeSpillFolder(old.path)
}

/** The names ptc-runner writes in an agent folder: `<ms>-<id>-result.json`, `<ms>-<id>-logs.txt`, and writeFileAtomicSync's temp files. */
const SPILL_NAME = /^(\d+-[A-Za-z0-9]+-(result\.json|logs\.txt)|\..+\.\d+\.[a-z0-9]+\.tmp)$/

/**
 * Removes an agent folder only when it holds nothing but spill files (a `stateDir` may be a folder
 * of the user's, whose `spill/` might hold folders of their own, a review noted): each is unlinked,
 * then the folder removed without recursion, so anything else stops it. Never throws.
 */
function removeSpillFolder(folder: string): void {
  try {
    const names = readdirSync(folder)
    if (!names.every((name) => SPILL_NAME.test(name) && lstatSync(join(folder, name)).isFile())) return
    for (const name of names) unlinkSync(join(folder, name))
    rmdirSync(folder)
  } catch {
    // changed meanwhile, or not ours to remove: leave the rest
  }
}
