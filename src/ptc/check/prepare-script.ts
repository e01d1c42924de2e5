/**
 * One script through the checker (SPEC S9.1): type-check against the tool declarations, then
 * compile for the isolate. Runs inside a checker worker (`checker-worker-entry.ts`), never on the
 * host's event loop: how long it takes is up to the script (a recursive type can take seconds).
 */
import { CompileError, compileScript, moduleUseErrors } from '../compile.ts'
import { formatDiagnostics, type Diagnostic } from '../compile-diagnostics.ts'
import type { TypeChecker } from '../type-checker.ts'
import type { PreparedScript, PrepareRequest } from './checker-contract.ts'

/**
 * Checks (when `request.typecheck`, with the TypeChecker `checker()` resolves to: loaded on
 * first use) and compiles (when `request.compile`) `request.code`.
 * Diagnostics are in the user's coordinates (see `Diagnostic`). Script problems are values
 * (`type-error`, `syntax-error`); rejects only for infrastructure failures (esbuild cannot start).
 */
export async function prepareScript(checker: () => Promise<TypeChecker>, request: PrepareRequest, declarations: string): Promise<PreparedScript> {
  let diagnostics: Diagnostic[] = []
  if (request.typecheck) {
    // A script that imports a module at run time hears what the unchecked path says ("scripts
    // cannot import modules; use tools.*"), not TypeScript's hint to install @types/node.
    const imports = await moduleUseErrors(request.code)
    if (imports.length > 0) return { kind: 'syntax-error', message: formatDiagnostics(imports), diagnostics: imports }
    diagnostics = (await checker()).check(request.code, declarations)
    if (diagnostics.some((diagnostic) => diagnostic.category === 'error')) return { kind: 'type-error', diagnostics }
  }
  if (!request.compile) return { kind: 'checked', diagnostics }
  try {
    return { kind: 'compiled', compiled: await compileScript(request.code), diagnostics }
  } catch (error) {
    if (!CompileError.isInstance(error)) throw error
    return { kind: 'syntax-error', message: error.message, diagnostics: [...error.diagnostics] }
  }
}
