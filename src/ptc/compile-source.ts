/**
 * The user's `run_code` script as both the compile step and the type checker see it (SPEC S9.1):
 * the body of an async function, so top-level `await` and a top-level `return <value>` are legal.
 *
 * Both wrap the script in {@link SCRIPT_PREFIX} / {@link SCRIPT_SUFFIX}. Import statements cannot
 * live inside a function, so {@link findModuleUses} locates them (and `require(...)` /
 * `import(...)`) with the TypeScript parser, and callers blank them out with {@link blankRanges},
 * which keeps every other character at its offset so positions map back to the user's text.
 */
import type ts from 'typescript'

/** The TypeScript module, passed in so importing this file does not load it (compile loads it lazily). */
export type TypeScriptModule = typeof ts

/** The first line of the wrapper; the user's line 1 is line 2 of the wrapped text. */
export const SCRIPT_PREFIX = 'async function __ptc_main__() {\n'
/** Closes the wrapper; on its own line so a trailing `// comment` in the script cannot eat it. */
export const SCRIPT_SUFFIX = '\n}\n'

/**
 * The label of {@link GUARD_PREFIX}'s block: new in every process, so no script can declare it
 * itself (a script's own block of that name would hold the `break` and pass the guard). It is
 * never run and never in a message, so no script can learn it.
 */
const GUARD_LABEL = `__ptc_body_${Math.random().toString(36).slice(2, 12)}__`

/**
 * The wrapper a script is also parsed in to prove that its braces do not close the function's
 * body early: the body is a labelled block, and the `break` to that label at its end parses only
 * inside that block and not in a function nested in it (a label is not seen across a function's
 * boundary). A script whose stray `}` closed the body early parses in
 * {@link SCRIPT_PREFIX}/{@link SCRIPT_SUFFIX} when a stray `{` or an unclosed function follows,
 * and its last lines would run outside the body, before it; in this wrapper it fails. Only
 * parsed, never run: in a block, esbuild rewrites function declarations into `let` bindings
 * (their hoisting and names would change). One line, as `SCRIPT_PREFIX`.
 */
export const GUARD_PREFIX = `async function __ptc_main__() { ${GUARD_LABEL}: {\n`
/**
 * Ends {@link GUARD_PREFIX}'s block and function. The `!0` after the `break` is no type member:
 * esbuild skips a type's body loosely, so a stray `}` followed by `interface I {` (whose body
 * would hold the `break`) passed without it.
 */
export const GUARD_SUFFIX = `\nbreak ${GUARD_LABEL}; !0\n} }\n`

/** The message for a `}` that closes the script's body before its end (see {@link GUARD_PREFIX}). */
export const EARLY_CLOSE_MESSAGE = 'Unexpected "}": the script closes more braces than it opens, and this one ends the script\'s body (a script is the body of an async function); remove it or add the "{" it should close'

/** The message for a script that ends in the middle of an expression or statement (`return 1 +`, `[1,`), at its last line. */
export const UNFINISHED_SCRIPT_MESSAGE = 'Unexpected end of the script: it ends in the middle of an expression or statement; finish it (an operand after an operator, a closing ")", "]" or "}", a value after ":")'

/**
 * Where, as an offset into the user's code, the `}` is that closed the wrapper's function in
 * `file` (the wrapped text TypeScript parsed, the user's code starting at `userStart`), when that
 * brace is the user's own, not the wrapper's; `undefined` when the body ends where the wrapper
 * put its end.
 */
export function earlyCloseOffset(ts: TypeScriptModule, file: ts.SourceFile, userStart: number, userLength: number): number | undefined {
  const main = file.statements.find((statement): statement is ts.FunctionDeclaration => ts.isFunctionDeclaration(statement) && statement.name?.text === '__ptc_main__')
  const closing = main?.body === undefined ? undefined : main.body.end - 1
  if (closing === undefined || closing < userStart || closing >= userStart + userLength || file.text[closing] !== '}') return undefined
  return closing - userStart
}

/** The one message for every runtime module access: scripts reach the host only through tools. */
export const NO_IMPORTS_MESSAGE = 'scripts cannot import modules; use tools.*'

/**
 * One place where the script reaches for a module. `start`/`end` are UTF-16 offsets into the
 * user's own code (not the wrapped text). `type-import` is `import type …` (or an import whose
 * every named binding is `type`), which erases to nothing; every other kind would need a module
 * system at run time, which the isolate does not have.
 */
export interface ModuleUse {
  kind: 'type-import' | 'import' | 'dynamic-import' | 'require'
  start: number
  end: number
}

/** Cheap pre-filter: without these words there is nothing to find, so the parser is skipped. */
const MODULE_WORDS = /\b(?:import|require)\b/

/** Whether `code` could contain a {@link ModuleUse}; false means {@link findModuleUses} is `[]`. */
export function mentionsModules(code: string): boolean {
  return MODULE_WORDS.test(code)
}

/**
 * Every import declaration, `import x = require()`, dynamic `import()` and call of a free
 * `require` in `code`, in source order. A `require` the script declares itself (a local function
 * or variable of that name) is left alone. Costs one parse, and only when the words occur
 * (check {@link mentionsModules} first to avoid loading TypeScript at all).
 */
export function findModuleUses(ts: TypeScriptModule, code: string): ModuleUse[] {
  if (!mentionsModules(code)) return []
  const wrapped = SCRIPT_PREFIX + code + SCRIPT_SUFFIX
  const file = ts.createSourceFile('script.ts', wrapped, ts.ScriptTarget.ES2025, true, ts.ScriptKind.TS)
  const uses: ModuleUse[] = []
  let declaresRequire = false
  const add = (kind: ModuleUse['kind'], node: ts.Node): void => {
    const start = node.getStart(file) - SCRIPT_PREFIX.length
    const end = node.getEnd() - SCRIPT_PREFIX.length
    // Outside the user's text only if the script unbalanced the wrapper's braces; esbuild and
    // the checker then report the syntax error themselves.
    if (start >= 0 && end <= code.length) uses.push({ kind, start, end })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(isTypeOnlyImport(ts, node) ? 'type-import' : 'import', node)
      return
    }
    if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) add(node.isTypeOnly ? 'type-import' : 'import', node)
      return
    }
    if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add('dynamic-import', node)
      else if (ts.isIdentifier(node.expression) && node.expression.text === 'require') add('require', node)
    }
    if (isDeclarationOf(ts, node, 'require')) declaresRequire = true
    ts.forEachChild(node, visit)
  }
  visit(file)
  return declaresRequire ? uses.filter((use) => use.kind !== 'require') : uses
}

function isTypeOnlyImport(ts: TypeScriptModule, node: ts.ImportDeclaration): boolean {
  const clause = node.importClause
  if (clause === undefined) return false // `import 'x'` runs the module for its side effects
  if (clause.isTypeOnly) return true
  const bindings = clause.namedBindings
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  )
}

function isDeclarationOf(ts: TypeScriptModule, node: ts.Node, name: string): boolean {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isParameter(node) ||
      ts.isClassDeclaration(node)) &&
    node.name !== undefined &&
    ts.isIdentifier(node.name) &&
    node.name.text === name
  )
}

/**
 * `code` with every character inside `ranges` replaced by a space, line breaks kept, so the
 * length, every line number and every column outside the ranges stay what the user wrote.
 */
export function blankRanges(code: string, ranges: readonly { start: number; end: number }[]): string {
  if (ranges.length === 0) return code
  let out = ''
  let at = 0
  for (const { start, end } of ranges) {
    out += code.slice(at, start) + code.slice(start, end).replace(/[^\r\n]/g, ' ')
    at = end
  }
  return out + code.slice(at)
}

/** JavaScript's line terminators (ECMA-262 "Line Terminators": CR LF, LF, CR, LS, PS), as V8, esbuild and TypeScript count lines. */
const LINE_TERMINATORS = /\r\n|[\n\r\u2028\u2029]/g

/** `text`'s lines, split at every JavaScript line terminator (not only `\n`). */
export function splitLines(text: string): string[] {
  return text.split(LINE_TERMINATORS)
}

/** 1-based line and 1-based UTF-16 column of `offset` in `text`; clamped into the text. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const clamped = Math.max(0, Math.min(offset, text.length))
  let line = 1
  let lineStart = 0
  for (const terminator of text.matchAll(LINE_TERMINATORS)) {
    if (terminator.index >= clamped) break
    line++
    lineStart = terminator.index + terminator[0].length
  }
  return { line, column: clamped - lineStart + 1 }
}
