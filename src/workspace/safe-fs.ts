/**
 * Opening files without following what was swapped in after a path check (SPEC S8). A sandboxed
 * `bash` runs concurrently with the fs tools and the host's own writes (spill, journal), so a
 * path that was checked a moment ago may now run through a symbolic link to anywhere, or end in
 * a FIFO that blocks `open()` forever. Opening by path is therefore never trusted here; instead
 * (openat discipline, Linux):
 *
 * - the directory is opened one component at a time from a trusted root, every component with
 *   `O_DIRECTORY | O_NOFOLLOW` through `/proc/self/fd/<dirfd>/<name>`, which the kernel resolves
 *   to the directory already open, so no component can be swapped once passed;
 * - the opened directory's real location (`readlink /proc/self/fd/<fd>`) must be inside the
 *   allowed roots and, for writes, outside the protected folders;
 * - the final component is opened with `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY` (a FIFO cannot block
 *   the open, a symlink is refused) and `fstat`ed: only regular files (and, for reads,
 *   directories, which the caller reports) are accepted; then all I/O goes through the fd.
 *
 * Every function is synchronous for the opens (they cannot block: `O_NONBLOCK`) so the host's
 * synchronous writers can use them; data transfer has async forms for the tools.
 */
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { PtcError } from '../errors/ptc-error.ts'
import { isInside } from './is-inside.ts'

const { O_RDONLY, O_WRONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY, O_CREAT, O_EXCL, O_APPEND } = fs.constants

const readAsync = promisify(fs.read)
const writeAsync = promisify(fs.write)

/**
 * Where a safe open may land (S8). `roots`: absolute, realpath'd directories; the file's directory
 * must be one of them or below one. `protectedDirs`: absolute, realpath'd directories under which
 * nothing may be created or written (the `.ptc` state folder for the fs tools); reads there are
 * allowed.
 */
export interface SafeArea {
  readonly roots: readonly string[]
  readonly protectedDirs?: readonly string[]
}

/** How to open the final component: see {@link openFileSync}. */
export type SafeOpenMode = 'read' | 'create' | 'overwrite' | 'append'

/** Stable codes of {@link UnsafePathError}. */
export type UnsafePathCode = 'path-outside-area' | 'path-protected' | 'path-swapped' | 'path-not-regular'

/**
 * A safe open refused (S8): the directory really lies outside the area (`path-outside-area`) or in
 * a protected folder (`path-protected`), a component is a symbolic link or not a directory
 * (`path-swapped`: it changed since the caller's check), or the final component is not a regular
 * file (`path-not-regular`: FIFO, device, socket, symlink). `details.path` is the path asked for.
 */
export class UnsafePathError extends PtcError {
  declare readonly code: UnsafePathCode

  constructor(code: UnsafePathCode, message: string, details: Record<string, unknown>, cause?: unknown) {
    super(code, message, { details, ...(cause !== undefined && { cause }) })
  }

  /** True only for a safe-open refusal (a `path-*` code), even from another copy of this module. */
  static override isInstance(value: unknown): value is UnsafePathError {
    return PtcError.isInstance(value) && typeof value.code === 'string' && value.code.startsWith('path-')
  }
}

/** The real location of an open fd, as the kernel reports it (`/proc/self/fd/<fd>`). */
export function fdPath(fd: number): string {
  return fs.readlinkSync(`/proc/self/fd/${fd}`)
}


function checkLocation(real: string, area: SafeArea, write: boolean, asked: string): void {
  if (!area.roots.some((root) => isInside(root, real))) {
    throw new UnsafePathError('path-outside-area', `${asked} really lies at ${real}, outside [${area.roots.join(', ')}]; it changed during the call`, { path: asked, real })
  }
  if (write && area.protectedDirs?.some((dir) => isInside(dir, real))) {
    throw new UnsafePathError('path-protected', `${asked} is inside a protected folder (${real}) and cannot be written`, { path: asked, real })
  }
}

function isSymlinkAt(at: string): boolean {
  try {
    return fs.lstatSync(at).isSymbolicLink()
  } catch {
    return false
  }
}

/** What kind of file `stat` describes, for messages (`FIFO (named pipe)`, `socket`, …); `special file` when none fits. */
export function describeStat(stat: fs.Stats): string {
  if (stat.isSymbolicLink()) return 'symbolic link'
  if (stat.isFIFO()) return 'FIFO (named pipe)'
  if (stat.isCharacterDevice()) return 'character device'
  if (stat.isBlockDevice()) return 'block device'
  if (stat.isSocket()) return 'socket'
  if (stat.isDirectory()) return 'directory'
  return 'special file'
}

/**
 * Open directory `dir` (absolute, normalized) for use as an `openat` base (S8), walking from the
 * deepest area root that contains it with `O_NOFOLLOW` at every component; with `create`, missing
 * components are made (`mkdir`, never through a symlink). The caller closes the returned fd.
 * `write` applies the area's `protectedDirs`.
 * @throws UnsafePathError when `dir` is outside the area, a component is a symlink or not a
 *   directory, or the opened directory's real location is outside the area / protected.
 * @throws the file system's error (e.g. `ENOENT` without `create`).
 */
export function openDirectorySync(dir: string, area: SafeArea, options: { create?: boolean; write?: boolean } = {}): number {
  const root = area.roots.filter((candidate) => isInside(candidate, dir)).sort((a, b) => b.length - a.length)[0]
  if (root === undefined) throw new UnsafePathError('path-outside-area', `${dir} is outside [${area.roots.join(', ')}]`, { path: dir })
  let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY)
  try {
    // The root itself is trusted by name (the policy realpath'd it), but must still be where it was.
    if (fdPath(fd) !== root) throw new UnsafePathError('path-swapped', `${root} is no longer the directory it was (now ${fdPath(fd)})`, { path: dir })
    for (const name of path.relative(root, dir).split(path.sep).filter((part) => part !== '')) {
      const at = `/proc/self/fd/${fd}/${name}`
      if (options.create) {
        try {
          fs.mkdirSync(at)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        }
      }
      let next: number
      try {
        next = fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // ENOTDIR for a plain file in the way is the caller's to report; a symlink is a swap.
        if (code === 'ELOOP' || (code === 'ENOTDIR' && isSymlinkAt(at))) {
          throw new UnsafePathError('path-swapped', `${path.join(fdPath(fd), name)} is a symbolic link or not a directory; the path changed during the call`, { path: dir }, error)
        }
        throw error
      }
      fs.closeSync(fd)
      fd = next
    }
    checkLocation(fdPath(fd), area, options.write === true, dir)
    return fd
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}

/**
 * Open `file` (absolute, normalized) inside `area` without following symlinks (S8). Modes:
 * `read` (`O_RDONLY`; a directory is returned for the caller to report), `create` (`O_CREAT |
 * O_EXCL`: fails with `EEXIST` when something is there), `overwrite` (an existing file,
 * `O_WRONLY`, no truncation: check its identity, then `ftruncate`), `append` (`O_APPEND |
 * O_CREAT`). Write modes create missing parent directories and respect `protectedDirs`. Returns
 * the fd (the caller closes it), its `fstat` and its real path.
 * @throws UnsafePathError (see {@link openDirectorySync}; `path-not-regular` for FIFOs, devices,
 *   sockets and a symlink as the final component).
 * @throws the file system's error (`ENOENT` for a missing file in `read`/`overwrite`, `EEXIST`).
 */
export function openFileSync(file: string, area: SafeArea, mode: SafeOpenMode): { fd: number; stat: fs.Stats; real: string } {
  const name = path.basename(file)
  if (name === '' || name === '.' || name === '..' || !path.isAbsolute(file)) {
    throw new UnsafePathError('path-outside-area', `${file} does not name a file`, { path: file })
  }
  const write = mode !== 'read'
  if (mode === 'read' && area.roots.includes(file)) {
    // A root is opened as the directory it is (its parent lies outside the area).
    const fd = openDirectorySync(file, area)
    return { fd, stat: fs.fstatSync(fd), real: fdPath(fd) }
  }
  const dirFd = openDirectorySync(path.dirname(file), area, { create: mode === 'create' || mode === 'append', write })
  try {
    const at = `/proc/self/fd/${dirFd}/${name}`
    // Refuse special files before opening them at all: opening some devices has side effects.
    let before: fs.Stats | undefined
    try {
      before = fs.lstatSync(at)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    if (before && !before.isFile() && !before.isDirectory()) {
      throw new UnsafePathError('path-not-regular', `${file} is a ${describeStat(before)}, not a regular file`, { path: file, kind: describeStat(before) })
    }
    const flags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | { read: O_RDONLY, create: O_WRONLY | O_CREAT | O_EXCL, overwrite: O_WRONLY, append: O_WRONLY | O_APPEND | O_CREAT }[mode]
    let fd: number
    try {
      fd = fs.openSync(at, flags, 0o666)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // ELOOP: a symlink swapped in; ENXIO: a FIFO without a reader. (EISDIR, a directory for a
      // write, is the caller's to report.)
      if (code === 'ELOOP' || code === 'ENXIO') {
        throw new UnsafePathError('path-not-regular', `${file} is not a regular file (it changed during the call: ${code})`, { path: file }, error)
      }
      throw error
    }
    try {
      const stat = fs.fstatSync(fd)
      if (!stat.isFile() && !(mode === 'read' && stat.isDirectory())) {
        throw new UnsafePathError('path-not-regular', `${file} is a ${describeStat(stat)}, not a regular file`, { path: file, kind: describeStat(stat) })
      }
      const real = fdPath(fd)
      checkLocation(path.dirname(real), area, write, file)
      return { fd, stat, real }
    } catch (error) {
      fs.closeSync(fd)
      throw error
    }
  } finally {
    fs.closeSync(dirFd)
  }
}

/**
 * Read up to `maxBytes + 1` bytes from `fd` from offset 0 (so a caller can tell a file grew past
 * its cap), through the fd only. Honours `signal` between chunks.
 */
export async function readFd(fd: number, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  while (total <= maxBytes) {
    if (signal?.aborted) throw signal.reason
    const buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total))
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, total)
    if (bytesRead === 0) break
    chunks.push(buffer.subarray(0, bytesRead))
    total += bytesRead
  }
  // A call cancelled (its run's deadline) while its last read was in flight stops here, before its
  // caller's synchronous work on the bytes: many such reads in flight would otherwise each pay it.
  if (signal?.aborted) throw signal.reason
  return Buffer.concat(chunks, total)
}

/** Write all of `data` to `fd` at its current position (async). */
export async function writeFd(fd: number, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length; ) {
    const { bytesWritten } = await writeAsync(fd, data, offset, data.length - offset)
    offset += bytesWritten
  }
}

function writeFdSync(fd: number, data: Uint8Array): void {
  for (let offset = 0; offset < data.length; ) offset += fs.writeSync(fd, data, offset, data.length - offset)
}

/**
 * Write `data` to `file` atomically (temp file + rename inside the opened directory, S8): the
 * directory is created under `area` without following symlinks, the temp file is created
 * `O_EXCL | O_NOFOLLOW`, and the rename replaces whatever entry is at `file` (a symlink there is
 * replaced, never followed). Returns the real path written.
 * @throws UnsafePathError / the file system's error, as {@link openDirectorySync}.
 */
export function writeFileAtomicSync(file: string, area: SafeArea, data: string | Uint8Array): string {
  const dirFd = openDirectorySync(path.dirname(file), area, { create: true, write: true })
  try {
    const name = path.basename(file)
    const temp = `.${name}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`
    const fd = fs.openSync(`/proc/self/fd/${dirFd}/${temp}`, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0o644)
    try {
      writeFdSync(fd, typeof data === 'string' ? Buffer.from(data) : data)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(`/proc/self/fd/${dirFd}/${temp}`, `/proc/self/fd/${dirFd}/${name}`)
    return path.join(fdPath(dirFd), name)
  } finally {
    fs.closeSync(dirFd)
  }
}

/**
 * Append `data` to `file` (created if missing) without following symlinks (S8); refuses when
 * `file` is not a regular file.
 * @throws UnsafePathError / the file system's error, as {@link openFileSync}.
 */
export function appendFileSafeSync(file: string, area: SafeArea, data: string | Uint8Array): void {
  const { fd } = openFileSync(file, area, 'append')
  try {
    writeFdSync(fd, typeof data === 'string' ? Buffer.from(data) : data)
  } finally {
    fs.closeSync(fd)
  }
}
