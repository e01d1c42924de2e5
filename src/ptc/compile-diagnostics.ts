/**
 * The diagnostic shape shared by the compile step and the type checker (SPEC S9.1), and its
 * one-line-per-diagnostic rendering for the CLI. Kept free of runtime imports so `compile.ts`
 * can use it without loading TypeScript.
 */

/**
 * One problem in a `run_code` script, always in the user's own coordinates: `line` is 1-based,
 * `column` is 1-based in UTF-16 code units (what an editor shows). `code` is the TypeScript
 * number (`2345` for TS2345); esbuild syntax errors and PTC's own rules (runtime imports) have
 * none.
 */
export interface Diagnostic {
  line: number
  column: number
  message: string
  code?: number
  category: 'error' | 'warning'
}

/** Why a script cannot `export`: said where esbuild or TypeScript only say the keyword is unexpected. */
export const NOT_A_MODULE = 'a script is the body of an async function, not a module, so it cannot export; return what the caller needs instead'

/** What the type checker says of a `namespace` in a script, where esbuild says only `Expected ";" but found "N"`. */
export const NOT_A_NAMESPACE_PLACE = 'A namespace declaration is only allowed at the top level of a namespace or module, and a script is the body of an async function: use an object or plain functions instead'

/** Whether esbuild's error `text`, with `lineBefore` the text of its line before it, is the name after a `namespace` or `module` keyword. */
export function isNamespace(text: string, lineBefore: string): boolean {
  return text.startsWith('Expected ";" but found') && /(?:^|[^\w$.])(?:namespace|module)\s+$/.test(lineBefore)
}

/**
 * Renders `3:15 error TS2345: message` lines (`3:15 error: message` without a code), in the
 * order given, joined by `\n`, no trailing newline. Multi-line messages keep their own lines,
 * indented by two spaces under the first.
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map(({ line, column, message, code, category }) => {
      const label = code === undefined ? category : `${category} TS${code}`
      return `${line}:${column} ${label}: ${message.replace(/\n/g, '\n  ')}`
    })
    .join('\n')
}
