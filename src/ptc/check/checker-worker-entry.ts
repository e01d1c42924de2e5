/**
 * Main module of a checker worker started from the sources (a child process, or a worker thread
 * with `isolation: 'inline'`): serves the host's {@link CheckerPool} (`checker-service.ts`).
 * TypeScript is loaded with the first script to type-check, which the pool makes a warm-up of
 * its own when runs type-check, so a checker that only compiles starts in a fraction of the time.
 * A checker process may instead start from a snapshot with TypeScript already warm
 * (`checker-snapshot-entry.ts`). Exports nothing.
 */
import { enableCompileCache } from 'node:module'
import { parentPort } from 'node:worker_threads'
import type { TypeChecker } from '../type-checker.ts'
import { serveChecker } from './checker-service.ts'

// TypeScript is 9 MB of JavaScript: with the compile cache a warm start skips recompiling it.
try {
  enableCompileCache()
} catch {
  // Only a speed-up.
}

/** The first check parses and binds the lib files. */
let checker: Promise<TypeChecker> | undefined
const typeChecker = (): Promise<TypeChecker> =>
  (checker ??= import('../type-checker.ts').then(({ TypeChecker }) => {
    const created = new TypeChecker()
    created.check('return 1', '')
    return created
  }))

await serveChecker(parentPort, typeChecker)
