/**
 * Reading a script argument: a file path, or `-` for standard input.
 */
import { readFileSync } from 'node:fs'
import { UsageError } from './usage-error.ts'

/**
 * @throws UsageError when no path is given or the file cannot be read.
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
    throw new UsageError(`Cannot read script ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}
