/**
 * Test helper: type-checks a script next to a declaration file with the TypeScript compiler API,
 * in memory, lib es2025, strict (the checker's settings), and returns every diagnostic, the
 * declaration file's own included, as `file:line message`.
 */
import ts from 'typescript'

/** What the run_code description says in prose, declared for checking the embedded forms alone. */
export const TOOL_CALL_ERROR = "declare class ToolCallError extends Error { readonly name: 'ToolCallError'; readonly toolName: string }\n"

/** Type-checks `script` against `declarations`; returns the diagnostics as readable lines. */
export function check(declarations: string, script: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2025,
    lib: ['lib.es2025.d.ts'],
    strict: true,
    noEmit: true,
    types: [],
  }
  const files = new Map([
    ['/virtual/tools.d.ts', declarations],
    ['/virtual/script.ts', script],
  ])
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = files.get(fileName)
    return text === undefined
      ? getSourceFile.call(host, fileName, languageVersion, ...rest)
      : ts.createSourceFile(fileName, text, languageVersion, true)
  }
  host.fileExists = (fileName) => files.has(fileName) || fileExists.call(host, fileName)
  host.readFile = (fileName) => files.get(fileName) ?? readFile.call(host, fileName)
  const program = ts.createProgram([...files.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}` : ''
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  })
}

