/**
 * One script through the checker (SPEC S9.1): type-check against the tool declarations, then
 * compile for the isolate. Runs inside a checker worker (`checker-worker-entry.ts`), never on the
 * host's event loop: how long it takes is up to the script (a recursive type can take seconds).
 */
import { CompileError, compileScript, moduleUseErrors } from '../compile.ts'
import { formatDiagnostics, type Diagnostic } from '../compile-diagnostics.ts'
import { positionAt } from '../compile-source.ts'
import { saysScriptEnded } from '../esbuild-diagnostics.ts'
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
    if (diagnostics.some((diagnostic) => diagnostic.category === 'error')) {
      const refused = endedUnfinished(request.code, diagnostics) ? await compileRefusal(request.code, diagnostics) : undefined
      return refused?.kind === 'syntax-error' && saysScriptEnded(refused.diagnostics[0]?.message ?? '') ? refused : { kind: 'type-error', diagnostics }
    }
  }
  if (!request.compile) return { kind: 'checked', diagnostics }
  return compileRefusal(request.code, diagnostics)
}

/** The script compiled, or esbuild's refusal of it as a `syntax-error`; `diagnostics` go with a compiled one. */
async function compileRefusal(code: string, diagnostics: Diagnostic[]): Promise<PreparedScript> {
  try {
    return { kind: 'compiled', compiled: await compileScript(code), diagnostics }
  } catch (error) {
    if (!CompileError.isInstance(error)) throw error
    return { kind: 'syntax-error', message: error.message, diagnostics: [...error.diagnostics] }
  }
}

/**
 * Whether TypeScript reports a syntax error (TS1xxx) past the script's last non-blank character:
 * the script ends unfinished (`foo(1, 2`, `return 1 +`), and TypeScript says `',' expected` on a
 * line after it. esbuild's compile step says it at the last non-blank line instead (`Expected ")"
 * but the script ended`, `esbuild-diagnostics.ts`; a package trial), so that is what such a
 * script is told, checked or not. Should esbuild compile it after all, or say something else
 * (a bare "Unexpected end of file" for an unclosed `{`, where TypeScript's `'}' expected` is
 * better), TypeScript's errors stand and the script is not run (see `prepareScript`).
 */
function endedUnfinished(code: string, diagnostics: readonly Diagnostic[]): boolean {
  const end = positionAt(code, code.trimEnd().length)
  return diagnostics.some((d) => d.category === 'error' && d.code !== undefined && d.code >= 1000 && d.code < 2000 && (d.line > end.line || (d.line === end.line && d.column >= end.column)))
}
