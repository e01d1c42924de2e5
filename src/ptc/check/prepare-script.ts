/**
 * One script through the checker (SPEC S9.1): type-check against the tool declarations, then
 * compile for the isolate. Runs inside a checker worker (`checker-worker-entry.ts`), never on the
 * host's event loop: how long it takes is up to the script (a recursive type can take seconds).
 */
import { CompileError, compileScript } from '../compile.ts'
import type { Diagnostic } from '../compile-diagnostics.ts'
import type { TypeChecker } from '../type-checker.ts'
import type { PreparedScript, PrepareRequest } from './checker-contract.ts'

/**
 * Checks (when `request.typecheck`) and compiles (when `request.compile`) `request.code`.
 * Diagnostics are in the user's coordinates (see `Diagnostic`). Script problems are values
 * (`type-error`, `syntax-error`); rejects only for infrastructure failures (esbuild cannot start).
 */
export async function prepareScript(checker: TypeChecker, request: PrepareRequest, declarations: string): Promise<PreparedScript> {
  let diagnostics: Diagnostic[] = []
  if (request.typecheck) {
    diagnostics = checker.check(request.code, declarations)
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
