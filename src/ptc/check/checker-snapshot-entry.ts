/**
 * The program of a checker's start-up snapshot (issue 12: the checker's cold start). Not
 * imported: `checker-snapshot-build.ts` bundles it to one CommonJS file and runs
 * `node --snapshot-blob <blob> --build-snapshot <bundle>`, which evaluates the code below once:
 * TypeScript is loaded and the ES lib files are parsed and bound by a first check, and that
 * heap is saved. A checker process started with `--snapshot-blob <blob>` then begins with a warm
 * {@link TypeChecker} and only runs the deserialize main function: it serves the host's pool like
 * `checker-worker-entry.ts` (`checker-service.ts`). esbuild is loaded at run time (compile.ts).
 */
import v8 from 'node:v8'
import { TypeChecker } from '../type-checker.ts'
import { serveChecker } from './checker-service.ts'

const checker = new TypeChecker()
checker.check('return 1', '')

v8.startupSnapshot.setDeserializeMainFunction(() => {
  // A failure here ends the process; the pool then starts checkers from the module entry.
  serveChecker(null, () => Promise.resolve(checker)).catch((error: unknown) => {
    process.stderr.write(`ptc checker (snapshot): ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(70)
  })
})
