/**
 * Whole-file reads of the workspace tools (SPEC S8): a snapshot with its content hash, read through
 * a safe open, so read-before-edit can compare what the model saw with what is on disk.
 */
import { isUtf8 } from 'node:buffer'
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
   * Windows-1252, say; see {@link firstNotUtf8Line}). Then `text` is not the file: writing it
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

/**
 * The 1-based line of the first bytes of `bytes` that are not valid UTF-8, or `undefined` when
 * all of it is (Node's `buffer.isUtf8`, SIMD-fast). No UTF-8 sequence contains a newline byte,
 * so a prefix ending after a newline is valid exactly when every line in it is: the bad line is
 * found by bisecting such prefixes, O(n log n) byte checks at worst (a 10 MiB file of newlines
 * takes milliseconds, where checking line by line took half a second).
 */
export function firstNotUtf8Line(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined
  // Invariant: bytes [0, good) are valid and end a line (or are empty); [0, bad) are not.
  let good = 0
  let bad = bytes.length
  for (;;) {
    const mid = good + ((bad - good) >> 1)
    const next = bytes.indexOf(0x0a, mid)
    let cut = next !== -1 && next + 1 < bad ? next + 1 : -1
    if (cut === -1) {
      const previous = mid > good ? bytes.lastIndexOf(0x0a, mid - 1) : -1
      if (previous < good) break // no line ends between good and bad: the bad line starts at good
      cut = previous + 1
    }
    if (isUtf8(bytes.subarray(good, cut))) good = cut
    else bad = cut
  }
  let line = 1
  for (let at = 0; at < good; at++) if (bytes[at] === 0x0a) line++
  return line
}

/**
 * The UTF-16 byte order of a file that starts with a UTF-16 byte-order mark (`FF FE`, `FE FF`),
 * else `undefined`: such a file is text, though its NUL bytes make it look binary.
 */
export function utf16Bom(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE'
  return undefined
}

/**
 * Refuse `bytes` that are not UTF-8 text (S9.6: the file tools return and rewrite text that writes
 * back unchanged): a file with a UTF-16 byte-order mark is named as UTF-16, any other as another
 * encoding with the line of its first such bytes. `consequence` says what reading or editing it
 * would have done. Only read_file and edit_file call this (write_file replaces the whole file).
 * @throws WorkspaceToolError (`invalid-request`, detail `{ path, line? , encoding? }`).
 */
export function assertUtf8Text(bytes: Uint8Array, shown: string, file: string, consequence: string): void {
  const utf16 = utf16Bom(bytes)
  if (utf16) {
    throw new WorkspaceToolError(
      'invalid-request',
      `${shown} is ${utf16} text (it starts with a UTF-16 byte-order mark), not UTF-8; ${consequence} Convert it to UTF-8 first, for example with \`iconv -f UTF-16 -t UTF-8\`.`,
      { path: file, encoding: utf16 },
    )
  }
  const line = firstNotUtf8Line(bytes)
  if (line === undefined) return
  throw new WorkspaceToolError(
    'invalid-request',
    `${shown} is not UTF-8 text: line ${line} has bytes that are not valid UTF-8 (another encoding, such as Latin-1 or Windows-1252); ${consequence} Convert the file to UTF-8 first (for example with iconv), or use search to find text in it.`,
    { path: file, line },
  )
}
