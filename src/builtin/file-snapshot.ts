/**
 * Whole-file reads of the workspace tools (SPEC S8): a snapshot with its content hash, read through
 * a safe open, so read-before-edit can compare what the model saw with what is on disk.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import type { SafeArea } from '../workspace/safe-fs.ts'
import { readFd } from '../workspace/safe-fs.ts'
import { openForTool } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/**
 * A file as read from disk: bytes, decoded text, lowercase hex SHA-256, mtime (ms), size (bytes),
 * and its identity (`dev`, `ino`), which an overwrite checks before writing (S8).
 */
export interface FileSnapshot {
  readonly bytes: Buffer
  /**
   * The bytes decoded as UTF-8; lossy (U+FFFD) when they are not UTF-8 (a file in Latin-1 or
   * Windows-1252, say; see `text-encoding.ts`). Then `text` is not the file: writing it
   * back would replace those bytes, so the tools that return or rewrite the text refuse it.
   */
  readonly text: string
  readonly hash: string
  readonly mtimeMs: number
  readonly size: number
  readonly dev: number
  readonly ino: number
}

/** Lowercase hex SHA-256 of `data`. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/**
 * Read a regular file completely through a safe open inside `area` (S8: no symlink followed, a
 * FIFO never blocks); `undefined` when it does not exist.
 * @throws WorkspaceToolError (`invalid-request`) for a directory or a file over `maxBytes`.
 * @throws ToolDeniedError when the path changed into something unsafe during the call.
 */
export async function readSnapshot(file: string, maxBytes: number, area: SafeArea, signal?: AbortSignal): Promise<FileSnapshot | undefined> {
  let opened
  try {
    opened = openForTool(file, area, 'read')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const { fd, stat } = opened
  try {
    if (stat.isDirectory()) throw new WorkspaceToolError('invalid-request', `${file} is a directory; use list_dir or glob to see what it contains.`, { path: file })
    if (stat.size > maxBytes) {
      throw new WorkspaceToolError('invalid-request', `${file} is ${stat.size} bytes, over the ${maxBytes}-byte limit of this tool.`, { path: file, size: stat.size })
    }
    const bytes = await readFd(fd, maxBytes, signal)
    if (bytes.length > maxBytes) {
      throw new WorkspaceToolError('invalid-request', `${file} grew past the ${maxBytes}-byte limit of this tool while it was read.`, { path: file })
    }
    return { bytes, text: bytes.toString('utf8'), hash: sha256(bytes), mtimeMs: stat.mtimeMs, size: bytes.length, dev: stat.dev, ino: stat.ino }
  } finally {
    fs.closeSync(fd)
  }
}

/** Heuristic: a NUL byte in the first 8 KiB means binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0)
}
