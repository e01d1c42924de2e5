/**
 * The one folder `ptc view` serves from: `<workspace>/.ptc/journal/` (SPEC S11.6, S8). Nothing
 * outside it is ever opened: a session is named by its bare file name, which must look like a
 * journal (`[A-Za-z0-9][A-Za-z0-9._-]*.jsonl`, so no `/`, no `..`, no hidden file), and it is
 * opened with safe-fs from the realpath'd workspace, every component (`.ptc`, `journal`, the file)
 * with `O_NOFOLLOW`, so a symbolic link anywhere on the way is refused, as are FIFOs and devices.
 */
import { closeSync, fstatSync, lstatSync, readdirSync, realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { join } from 'node:path'
import { openDirectorySync, openFileSync, type SafeArea } from '../workspace/safe-fs.ts'
import { journalFolder } from '../workspace/state-folder.ts'
import { ViewError } from './view-error.ts'

/** What a session (journal file) name must look like: a bare `.jsonl` name, at most 255 bytes. */
export const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,248}\.jsonl$/

/** A journal file of the folder. `mtimeMs`: last write, ms since the epoch. */
export interface JournalEntry {
  name: string
  size: number
  mtimeMs: number
}

/** An open journal file: read it through `fd`, close it with `close()`. */
export interface OpenJournal {
  fd: number
  size: number
  mtimeMs: number
  /** The file's real path (for watching); it lies in the journal folder. */
  real: string
  close(): void
}

/** The journal folder of one workspace. */
export class JournalFolder {
  /** The realpath'd workspace. */
  readonly workspace: string
  /** `<workspace>/.ptc/journal`. */
  readonly dir: string
  private readonly area: SafeArea

  /** @throws ViewError `view-not-found` when `workspace` is not a directory. */
  constructor(workspace: string) {
    try {
      this.workspace = realpathSync(resolve(workspace))
      if (!lstatSync(this.workspace).isDirectory()) throw new Error('not a directory')
    } catch (error) {
      throw new ViewError('view-not-found', `The workspace ${workspace} is not a directory (${(error as Error).message}); pass --workspace DIR.`, { workspace })
    }
    this.dir = journalFolder(this.workspace)
    this.area = { roots: [this.workspace] }
  }

  /**
   * The journal files, in no particular order: regular files with a journal name only (symlinks,
   * folders and other names are left out). `[]` when the folder does not exist yet.
   * @throws ViewError `view-refused` when `.ptc` or `journal` is a symbolic link or not a folder.
   */
  list(): JournalEntry[] {
    let dirFd: number
    try {
      dirFd = openDirectorySync(this.dir, this.area)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw new ViewError('view-refused', `Not showing ${this.dir}: ${(error as Error).message}. ptc view serves only a real .ptc/journal folder inside the workspace; remove the link.`, { dir: this.dir })
    }
    try {
      const entries: JournalEntry[] = []
      for (const dirent of readdirSync(`/proc/self/fd/${dirFd}`, { withFileTypes: true })) {
        if (!dirent.isFile() || !SESSION_NAME.test(dirent.name)) continue
        try {
          const stat = lstatSync(`/proc/self/fd/${dirFd}/${dirent.name}`)
          if (stat.isFile()) entries.push({ name: dirent.name, size: stat.size, mtimeMs: stat.mtimeMs })
        } catch {
          // Removed since the listing: leave it out.
        }
      }
      return entries
    } finally {
      closeSync(dirFd)
    }
  }

  /**
   * Open the journal `name` for reading.
   * @throws ViewError `view-bad-request` when `name` is not a journal name, `view-not-found` when
   *   there is no such regular file in the folder (symlinks and special files count as none).
   */
  open(name: string): OpenJournal {
    if (typeof name !== 'string' || !SESSION_NAME.test(name)) {
      throw new ViewError('view-bad-request', `"${String(name).slice(0, 80)}" is not a session name; session names are journal file names like 2026-12-01T08-00-00-000Z-123.jsonl.`)
    }
    let opened: ReturnType<typeof openFileSync>
    try {
      opened = openFileSync(join(this.dir, name), this.area, 'read')
    } catch (error) {
      throw new ViewError('view-not-found', `No session ${name} in ${this.dir}.`, { name, reason: (error as Error).message })
    }
    const { fd, real } = opened
    if (!opened.stat.isFile()) {
      closeSync(fd)
      throw new ViewError('view-not-found', `No session ${name} in ${this.dir}.`, { name })
    }
    let closed = false
    return {
      fd,
      real,
      get size() {
        return closed ? 0 : fstatSync(fd).size
      },
      mtimeMs: opened.stat.mtimeMs,
      close() {
        if (closed) return
        closed = true
        closeSync(fd)
      },
    }
  }
}
