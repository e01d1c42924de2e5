/**
 * Reading a script argument: a file path, or `-` for standard input.
 */
import { isUtf8 } from 'node:buffer'
import { open } from 'node:fs/promises'
import { UsageError } from './usage-error.ts'

/** What a newcomer is told for the usual reasons a script file cannot be read (Node error codes). */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a folder on its path is a file',
}

/**
 * The script text of `path` (`-`: all of standard input), which must be UTF-8; a `#!` first line
 * becomes a comment.
 * @throws UsageError when no path is given, the file cannot be read, standard input is empty, or
 *   the text is not UTF-8: one line naming the file and why (`cannot read script 'x.ts': no such
 *   file. …`; for another encoding the line of its first such bytes, since decoding it anyway
 *   would silently change the script).
 */
export async function readScript(path: string | undefined): Promise<string> {
  if (!path) throw new UsageError('Name a script file, or - to read it from standard input.')
  if (path === '-') {
    const chunks: Buffer[] = []
    let total = 0
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer)
      if ((total += (chunk as Buffer).length) > MAX_READ_BYTES) throw tooLong('standard input')
    }
    // Empty: closed (`<&-`), /dev/null, or Ctrl-D at once; running nothing would look like success.
    if (total === 0) throw new UsageError('cannot read a script from standard input: it is empty (closed, or nothing was piped in). Pipe a script in, or name a script file.')
    return await utf8Script(Buffer.concat(chunks), 'standard input')
  }
  let bytes: Buffer
  try {
    bytes = await readBounded(path)
  } catch (error) {
    if (UsageError.isInstance(error)) throw error
    const code = (error as NodeJS.ErrnoException).code
    const reason = (code !== undefined && REASONS[code]) || code || (error as Error).message
    throw new UsageError(`cannot read script '${path}': ${reason}. Name a readable script file, or - to read it from standard input.`)
  }
  return utf8Script(bytes, `script '${path}'`)
}

/**
 * Most bytes read of a script (16 MiB), so that `ptc run /dev/zero` or an endless pipe ends with
 * a usage error instead of filling memory (a review saw 4 GB). Far above what a script may be
 * (512 KiB, `PtcConfig.maxScriptBytes`), which the run itself checks and reports.
 */
export const MAX_READ_BYTES = 16 * 2 ** 20

function tooLong(what: string): UsageError {
  return new UsageError(`cannot read ${what}: it is longer than ${MAX_READ_BYTES} bytes, and a script may be 512 KiB (maxScriptBytes). Name a script file.`)
}

/** The bytes of file `path`, at most {@link MAX_READ_BYTES}; a device is refused before reading. */
async function readBounded(path: string): Promise<Buffer> {
  const file = await open(path, 'r')
  try {
    const stat = await file.stat()
    if (stat.isCharacterDevice() || stat.isBlockDevice()) throw new UsageError(`cannot read script '${path}': it is a device, not a file. Name a script file, or - to read it from standard input.`)
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const { bytesRead, buffer } = await file.read({ buffer: Buffer.allocUnsafe(64 * 1024) })
      if (bytesRead === 0) return Buffer.concat(chunks)
      chunks.push(buffer.subarray(0, bytesRead))
      if ((total += bytesRead) > MAX_READ_BYTES) throw tooLong(`script '${path}'`)
    }
  } finally {
    await file.close()
  }
}

/** `bytes` as text when they are UTF-8. @throws UsageError naming `what` and the encoding problem. */
async function utf8Script(bytes: Buffer, what: string): Promise<string> {
  if (isUtf8(bytes)) return withoutShebang(bytes.toString('utf8'))
  // Only for a script that is not UTF-8: the line finder stays off `ptc run`'s start-up.
  const { firstNotUtf8Line, utf16Bom } = await import('../builtin/text-encoding.ts')
  const utf16 = utf16Bom(bytes)
  const problem = utf16 ? `it is ${utf16} text (it starts with a UTF-16 byte-order mark)` : `line ${firstNotUtf8Line(bytes)} has bytes that are not valid UTF-8 (another encoding, such as Latin-1)`
  throw new UsageError(`cannot read ${what}: ${problem}. Save it as UTF-8${utf16 ? ' (iconv -f UTF-16 -t UTF-8)' : ''}.`)
}

/**
 * `text` with a first line `#!…` (an executable script: `#!/usr/bin/env -S ptc run`) turned into
 * a `//` comment of the same length, so the script's lines and columns stay as written; the
 * script runs as a function body, where `#!` would be a syntax error.
 */
function withoutShebang(text: string): string {
  // After a UTF-8 byte-order mark, if any (kept: the compile ignores it as it does anywhere).
  const at = text.startsWith('\uFEFF') ? 1 : 0
  return text.startsWith('#!', at) ? `${text.slice(0, at)}//${text.slice(at + 2)}` : text
}
