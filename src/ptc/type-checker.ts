/**
 * Type-checks a `run_code` script against the generated tool declarations before it runs
 * (SPEC S9.1): `tools.name(args)` must match `ToolArgsMap`, and results are `ToolOutputMap`
 * values. One TypeScript LanguageService stays warm between checks; only the script (and the
 * declarations, when their text changes) is re-parsed.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import ts from 'typescript'
import type { Diagnostic } from './compile-diagnostics.ts'
import {
  blankRanges,
  findModuleUses,
  NO_IMPORTS_MESSAGE,
  positionAt,
  EARLY_CLOSE_MESSAGE,
  earlyCloseOffset,
  SCRIPT_PREFIX,
  SCRIPT_SUFFIX,
  type ModuleUse,
} from './compile-source.ts'

import { refineDiagnostics, type CheckerFinding } from './format-diagnostics.ts'

export type { Diagnostic } from './compile-diagnostics.ts'
export { formatDiagnostics } from './compile-diagnostics.ts'

/**
 * What the isolate provides besides the ES2025 library and the tool declarations. Deliberately
 * not DOM or `@types/node`: `process`, `require`, `fetch`, `setTimeout` do not exist there.
 */
export const DEFAULT_GLOBALS = `interface Console {
  log(...data: unknown[]): void
  info(...data: unknown[]): void
  warn(...data: unknown[]): void
  error(...data: unknown[]): void
  debug(...data: unknown[]): void
}
declare var console: Console
`

/** Options of a {@link TypeChecker}. */
export interface TypeCheckerOptions {
  /** Ambient declarations of the isolate's own globals; replaces {@link DEFAULT_GLOBALS}. */
  globals?: string
  /** Merged over the defaults (strict, ES2025, no emit, `types: []`); for tests and experiments. */
  compilerOptions?: ts.CompilerOptions
}

const DEFAULT_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2025,
  // ES2025: what the isolates' V8 (Node 24's, 13.6) has, Set methods, iterator helpers,
  // Promise.try, RegExp.escape and Float16Array included (checked in an isolate).
  lib: ['lib.es2025.d.ts'],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: [],
  skipLibCheck: true,
  noUnusedLocals: false,
  noUnusedParameters: false,
}

/**
 * Virtual paths. Lib files live in `LIB_ROOT`, served out of `typescript/lib` and shared; every
 * checker keeps its own files in its own directory, because the shared document registry keys
 * documents by path and version, and two checkers' script version 3 are different texts.
 */
const ROOT = '/ptc/'
const LIB_ROOT = '/ptc/lib/'
let checkerCount = 0

const typescriptLibDir = path.dirname(createRequire(import.meta.url).resolve('typescript'))
/** JSDoc never changes a type error in `.ts` files; skipping it makes the cold lib parse cheaper. */
const JSDOC_PARSING_MODE = ts.JSDocParsingMode.ParseForTypeErrors
/** Lib files are read from disk at most once per process, shared by every checker. */
const libSnapshots = new Map<string, ts.IScriptSnapshot | undefined>()
/** Shared so several checkers (e.g. per session) parse each lib file once between them. */
const documentRegistry = ts.createDocumentRegistry(true, LIB_ROOT, JSDOC_PARSING_MODE)

/**
 * The lib files of shared memory (`SharedArrayBuffer`, `Atomics`), which the runtime removes from
 * a script's realm (`runtime/removed-globals.ts`): served empty, so a script using them fails
 * the check instead of the run.
 */
const NOT_IN_SCRIPTS = /^lib\.es\w+\.sharedmemory\.d\.ts$/

function libSnapshot(fileName: string): ts.IScriptSnapshot | undefined {
  const name = fileName.slice(LIB_ROOT.length)
  if (!/^lib(\.[\w-]+)*\.d\.ts$/.test(name)) return undefined
  if (!libSnapshots.has(name)) {
    let snapshot: ts.IScriptSnapshot | undefined
    try {
      snapshot = ts.ScriptSnapshot.fromString(NOT_IN_SCRIPTS.test(name) ? '' : readFileSync(path.join(typescriptLibDir, name), 'utf8'))
    } catch {
      snapshot = undefined
    }
    libSnapshots.set(name, snapshot)
  }
  return libSnapshots.get(name)
}

/** Maps a span of the virtual script file back to the user's text (`length` equal on both sides). */
interface Segment {
  virtualStart: number
  userStart: number
  length: number
}

/**
 * A warm TypeScript checker for `run_code` scripts (SPEC S9.1). The script is checked as the
 * body of `async function __ptc_main__() { … }`, so top-level `await` and `return` are legal;
 * `import type` lines are hoisted above that function, runtime imports are reported with the
 * compile step's message. Cost: the first check parses and binds the ES2025 lib files (about a
 * second, see the commit and tests); later checks re-parse only the script and, when its text
 * changed, the declarations (a few ms for a small script). Not safe for concurrent use from
 * several threads, but `check` is synchronous, so one instance serves a whole event loop.
 */
export class TypeChecker {
  /** The underlying service, for tooling (completions, hovers) and for tests of warm reuse. */
  readonly languageService: ts.LanguageService
  #globals: ts.IScriptSnapshot
  #declarations = ''
  #declarationsSnapshot = ts.ScriptSnapshot.fromString('')
  #declarationsVersion = 0
  #script = ts.ScriptSnapshot.fromString('')
  #scriptVersion = 0
  #disposed = false
  #scriptFile: string

  constructor(options: TypeCheckerOptions = {}) {
    const directory = `${ROOT}checker-${++checkerCount}/`
    const globalsFile = `${directory}globals.d.ts`
    const declarationsFile = `${directory}tools.d.ts`
    const scriptFile = `${directory}script.ts`
    this.#scriptFile = scriptFile
    this.#globals = ts.ScriptSnapshot.fromString(options.globals ?? DEFAULT_GLOBALS)
    const compilerOptions = { ...DEFAULT_COMPILER_OPTIONS, ...options.compilerOptions }
    const files = new Map<string, () => ts.IScriptSnapshot>([
      [globalsFile, () => this.#globals],
      [declarationsFile, () => this.#declarationsSnapshot],
      [scriptFile, () => this.#script],
    ])
    const snapshot = (fileName: string): ts.IScriptSnapshot | undefined =>
      files.get(fileName)?.() ?? (fileName.startsWith(LIB_ROOT) ? libSnapshot(fileName) : undefined)
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => compilerOptions,
      getProjectVersion: () => `${this.#declarationsVersion}:${this.#scriptVersion}`,
      getScriptFileNames: () => [globalsFile, declarationsFile, scriptFile],
      getScriptVersion: (fileName) =>
        fileName === scriptFile
          ? String(this.#scriptVersion)
          : fileName === declarationsFile
            ? String(this.#declarationsVersion)
            : '0',
      getScriptSnapshot: snapshot,
      getCurrentDirectory: () => directory,
      getDefaultLibFileName: (settings) => LIB_ROOT + ts.getDefaultLibFileName(settings),
      useCaseSensitiveFileNames: () => true,
      fileExists: (fileName) => snapshot(fileName) !== undefined,
      readFile: (fileName) => {
        const found = snapshot(fileName)
        return found?.getText(0, found.getLength())
      },
      directoryExists: (directoryName) => `${directoryName}/`.startsWith(ROOT),
      getDirectories: () => [],
      jsDocParsingMode: JSDOC_PARSING_MODE,
    }
    this.languageService = ts.createLanguageService(host, documentRegistry)
  }

  /**
   * The errors of `code` (a script body) against `declarations` (the generated `ToolArgsMap`,
   * `ToolOutputMap`, `tools`, `ToolCallError` text), sorted by position, in the user's
   * coordinates; `[]` when it type-checks. Syntax errors, when present, are returned alone (as
   * tsc does). Declaration-file errors are not reported. Worded for the model by
   * `refineDiagnostics`: related hints kept, knock-on errors dropped, unknown tool names listed.
   * Throws only after {@link dispose}.
   */
  check(code: string, declarations: string): Diagnostic[] {
    if (this.#disposed) throw new Error('TypeChecker is disposed')
    if (declarations !== this.#declarations) {
      this.#declarations = declarations
      this.#declarationsSnapshot = ts.ScriptSnapshot.fromString(declarations)
      this.#declarationsVersion++
    }
    const uses = findModuleUses(ts, code)
    const { text, segments } = virtualScript(code, uses)
    this.#script = ts.ScriptSnapshot.fromString(text)
    this.#scriptVersion++

    const own = uses
      .filter((use) => use.kind === 'import')
      .map((use): Diagnostic => ({ ...positionAt(code, use.start), message: NO_IMPORTS_MESSAGE, category: 'error' }))
    let found = this.languageService.getSyntacticDiagnostics(this.#scriptFile) as readonly ts.Diagnostic[]
    const main = segments.at(-1)!
    const file = this.languageService.getProgram()?.getSourceFile(this.#scriptFile)
    const early = file && earlyCloseOffset(ts, file, main.virtualStart, main.length)
    if (early !== undefined) return [{ ...positionAt(code, early), message: EARLY_CLOSE_MESSAGE, category: 'error' }]
    if (found.length === 0) found = this.languageService.getSemanticDiagnostics(this.#scriptFile)
    const findings = found.map((diagnostic): CheckerFinding => {
      const finding: CheckerFinding = toUserDiagnostic(diagnostic, code, segments)
      const related = (diagnostic.relatedInformation ?? [])
        .filter((info) => info.file?.fileName === this.#scriptFile && inUserText(info.start, segments))
        .map((info) => ({ ...toUserDiagnostic(info, code, segments) }))
        .map(({ line, column, message }) => ({ line, column, message }))
      const unknownTool = this.#unknownTool(diagnostic)
      return { ...finding, ...(related.length > 0 && { related }), ...(unknownTool && { unknownTool }) }
    })
    return refineDiagnostics([...own, ...findings])
  }

  /**
   * For "Property 'x' does not exist" (TS2339, TS2551) on `tools.x`: the name used and the names
   * of every tool, read from the type of `tools` (whatever form the declarations take).
   */
  #unknownTool(diagnostic: ts.Diagnostic): CheckerFinding['unknownTool'] {
    if ((diagnostic.code !== 2339 && diagnostic.code !== 2551) || diagnostic.start === undefined || diagnostic.file?.fileName !== this.#scriptFile) return undefined
    const program = this.languageService.getProgram()
    const file = program?.getSourceFile(this.#scriptFile)
    if (!program || !file) return undefined
    const start = diagnostic.start
    let access: ts.PropertyAccessExpression | undefined
    const visit = (node: ts.Node): void => {
      if (access || start < node.pos || start >= node.end) return
      if (ts.isPropertyAccessExpression(node) && node.name.getStart(file) === start) access = node
      else ts.forEachChild(node, visit)
    }
    visit(file)
    if (!access || !ts.isIdentifier(access.expression) || access.expression.text !== 'tools') return undefined
    const available = program.getTypeChecker().getTypeAtLocation(access.expression).getProperties().map((property) => property.name)
    return { name: access.name.text, available }
  }

  /** Releases the service and its documents in the shared registry; `check` throws afterwards. */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    this.languageService.dispose()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}

/**
 * The file TypeScript sees: type-only imports hoisted to module level (imports are illegal inside
 * a function), then the wrapper around the script with every import blanked, then `export {}` so
 * the file is a module and its names never collide with globals.
 */
function virtualScript(code: string, uses: readonly ModuleUse[]): { text: string; segments: Segment[] } {
  const segments: Segment[] = []
  let text = ''
  for (const use of uses) {
    if (use.kind !== 'type-import') continue
    segments.push({ virtualStart: text.length, userStart: use.start, length: use.end - use.start })
    text += `${code.slice(use.start, use.end)}\n`
  }
  text += SCRIPT_PREFIX
  segments.push({ virtualStart: text.length, userStart: 0, length: code.length })
  const blanked = blankRanges(
    code,
    uses.filter((use) => use.kind === 'type-import' || use.kind === 'import'),
  )
  text += `${blanked}${SCRIPT_SUFFIX}export {}\n`
  return { text, segments }
}

/** Whether a virtual-file offset lies in the user's own text, not in the wrapper around it. */
function inUserText(start: number | undefined, segments: readonly Segment[]): boolean {
  return start !== undefined && segments.some((segment) => start >= segment.virtualStart && start < segment.virtualStart + segment.length)
}

function toUserDiagnostic(diagnostic: ts.Diagnostic | ts.DiagnosticRelatedInformation, code: string, segments: readonly Segment[]): Diagnostic {
  const start = diagnostic.start ?? 0
  // The last segment starting at or before `start`, clamped into it: wrapper text maps to the
  // nearest user text before it (or the end of the script for the closing brace).
  let userOffset = 0
  for (const segment of segments) {
    if (segment.virtualStart > start) break
    userOffset = segment.userStart + Math.min(start - segment.virtualStart, segment.length)
  }
  return {
    ...positionAt(code, userOffset),
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    code: diagnostic.code,
    category: diagnostic.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
  }
}
