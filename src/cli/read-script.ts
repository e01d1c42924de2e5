/**
 * Reading a script argument: a file path, or `-` for standard input.
 */
import { readFileSync } from 'node:fs'
import { PtcError } from '../errors/ptc-error.ts'

/** A usage problem: the CLI prints the message and exits with code 2. */
export class UsageError extends PtcError {
  constructor(message: string) {
    super('usage', message)
  }
}

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
