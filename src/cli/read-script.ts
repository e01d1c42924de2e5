/**
 * Reading a script argument: a file path, or `-` for standard input.
 */
import { readFileSync } from 'node:fs'
import { UsageError } from './usage-error.ts'

/** What a newcomer is told for the usual reasons a script file cannot be read (Node error codes). */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a folder on its path is a file',
}

/**
 * The script text of `path` (`-`: all of standard input, as UTF-8).
 * @throws UsageError when no path is given or the file cannot be read: one line naming the file
 *   and why (`cannot read script 'x.ts': no such file. …`).
 */
export async function readScript(path: string | undefined): Promise<string> {
  if (!path) throw new UsageError('Name a script file, or - to read it from standard input.')
  if (path === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = (code !== undefined && REASONS[code]) || code || (error as Error).message
    throw new UsageError(`cannot read script '${path}': ${reason}. Name a readable script file, or - to read it from standard input.`)
  }
}
