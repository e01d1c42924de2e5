/**
 * The per-user cache folder (issue 12: "cache what can be cached between processes"): build
 * products that cost seconds to make and are cheap to verify, such as the checker's start-up
 * snapshot. Only ever a speed-up: every reader verifies what it finds (a missing, foreign or
 * corrupt entry is ignored and rebuilt), and every writer writes atomically (temp file + rename),
 * so a reader never sees half a file.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** Environment variable naming the cache folder; `off` turns the cache off. */
export const CACHE_ENV = 'PTC_CACHE_DIR'

/**
 * The cache folder, created (mode 0700) when missing: `$PTC_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/ptc-runner`, else `~/.cache/ptc-runner`. `undefined` when the cache is off
 * (`PTC_CACHE_DIR=off`) or the folder cannot be used safely: it cannot be created, is a symbolic
 * link or not a directory, or belongs to another user (whose files this process would run).
 */
export function userCacheFolder(): string | undefined {
  const configured = process.env[CACHE_ENV]
  if (configured === 'off') return undefined
  const folder = path.resolve(configured || path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'ptc-runner'))
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const stat = lstatSync(folder)
    if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) return undefined
    return folder
  } catch {
    return undefined
  }
}

/**
 * Writes `data` to `folder/name` atomically: a new temp file in `folder` (`O_EXCL | O_NOFOLLOW`)
 * renamed over `name`. Returns false (and leaves nothing behind) when that fails.
 */
export function writeCacheFile(folder: string, name: string, data: string | Uint8Array): boolean {
  const temp = path.join(folder, `.${name}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`)
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, path.join(folder, name))
    return true
  } catch {
    rmSync(temp, { force: true })
    return false
  }
}
