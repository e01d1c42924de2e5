/**
 * Which text the tools take as text (SPEC S9.6: the file tools return and rewrite text that writes
 * back unchanged): UTF-8, found by Node's `buffer.isUtf8`, and where it is not, the line of the
 * first bytes that are not, or the UTF-16 byte-order mark that says what the file is instead.
 */
import { isUtf8 } from 'node:buffer'
import { WorkspaceToolError } from './workspace-tool-error.ts'

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
