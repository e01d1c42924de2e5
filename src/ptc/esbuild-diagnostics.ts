/**
 * esbuild's syntax errors of a wrapped `run_code` script as diagnostics in the user's own
 * coordinates (SPEC S9.1), and what to say when esbuild tripped over the end of the script's body:
 * the wrapper's closing `}` is no brace the script wrote, so it is never blamed.
 */
import type { Message, TransformFailure } from 'esbuild'
import type { Diagnostic } from './compile-diagnostics.ts'
import { isNamespace, NOT_A_MODULE, NOT_A_NAMESPACE_PLACE } from './compile-diagnostics.ts'
import { EARLY_CLOSE_MESSAGE, positionAt, splitLines, UNFINISHED_SCRIPT_MESSAGE } from './compile-source.ts'

/** What a script is told whose `{` is never closed, at its last non-blank line (esbuild says only "Unexpected end of file", past it). */
export const UNCLOSED_BRACE_MESSAGE = 'Expected "}" but the script ended: a "{" it opens is not closed; close it'

/** How {@link bodyEndDiagnostic} ends esbuild's "Expected …" when the script ended before it. */
const SCRIPT_ENDED = ' but the script ended'

/**
 * Whether a diagnostic's `message` is one of {@link bodyEndDiagnostic}'s for a script that ended
 * unfinished (`Expected ")" but the script ended`, or the unfinished-script message); not
 * {@link UNCLOSED_BRACE_MESSAGE}, where TypeScript's `'}' expected` says more.
 */
export function saysScriptEnded(message: string): boolean {
  return message.endsWith(SCRIPT_ENDED) || message === UNFINISHED_SCRIPT_MESSAGE
}

/** Whether `error` is esbuild's rejection of a source that does not parse (it lists its `errors`). */
export function isTransformFailure(error: unknown): error is TransformFailure {
  return error instanceof Error && Array.isArray((error as Partial<TransformFailure>).errors)
}

/**
 * esbuild reports 1-based lines of the wrapped text (`prefixLines` lines before the user's) and
 * 0-based columns in UTF-8 bytes; the user wants 1-based lines of their own text and UTF-16
 * columns. Positions on the wrapper's own lines (an unclosed brace reported at the end) clamp to
 * the start or end of the user's code; `bodyEnd` marks an error esbuild found at the wrapper's
 * closing brace (`Unexpected "}"`, `Expected ")" but found "}"`), for {@link bodyEndDiagnostic}.
 */
export function esbuildDiagnostic(code: string, esbuildMessage: Message, prefixLines: number, lineCount = splitLines(code).length): Diagnostic & { bodyEnd?: true } {
  const location = esbuildMessage.location
  // The error's line up to it (esbuild's column counts UTF-8 bytes).
  const before = location === null ? '' : Buffer.from(location.lineText, 'utf8').subarray(0, location.column).toString('utf8')
  const text = esbuildMessage.text === 'Unexpected "export"' ? `Unexpected "export": ${NOT_A_MODULE}` : isNamespace(esbuildMessage.text, before) ? NOT_A_NAMESPACE_PLACE : esbuildMessage.text
  const base = { message: text, category: 'error' as const }
  if (location === null) return { ...base, line: 1, column: 1 }
  const line = location.line - prefixLines
  if (line < 1) return { ...base, line: 1, column: 1 }
  if (line > lineCount) {
    // A `}` after the script's last line is the wrapper's: either the script ends unfinished
    // (`return 1 +`, `foo(1, 2`) or a stray `}` of its own closed the body early.
    const bodyEnd = text === 'Unexpected "}"' || text.endsWith('but found "}"')
    // An unclosed `{` of the script took the wrapper's `}` as its own, and the text ran out.
    if (text === 'Unexpected end of file') return { ...base, message: UNCLOSED_BRACE_MESSAGE, ...positionAt(code, code.trimEnd().length) }
    return { ...base, ...positionAt(code, code.length), ...(bodyEnd && { bodyEnd: true as const }) }
  }
  return { ...base, line, column: before.length + 1 }
}

/** esbuild's words for a source that ends where it still needs something (`Expected ")"`, then this). */
const FOUND_END = ' but found end of file'

/**
 * The diagnostic for a script whose body ended where esbuild did not expect it: `found`, esbuild's
 * words at the wrapper's closing brace (`undefined`: the guard wrapper failed, `compile.ts`).
 * esbuild gives no syntax tree, but `body` transformed without the wrapper (where top-level
 * `await` and `return` parse too) tells the causes apart: it trips over a stray `}` of the script
 * (said at that brace, which closed the body early), or runs out at its end (said at its last
 * non-blank line: `Expected ")" but the script ended`, or that it ends unfinished). Without such
 * an answer: unfinished when esbuild expected something else than the `}`, else a stray `}`, at
 * the script's end.
 */
export async function bodyEndDiagnostic(code: string, body: string, transform: (source: string) => Promise<unknown>, found?: string): Promise<Diagnostic[]> {
  const end = positionAt(code, code.trimEnd().length)
  const unfinished = { ...end, message: UNFINISHED_SCRIPT_MESSAGE }
  let at = found?.endsWith('but found "}"') ? unfinished : { ...positionAt(code, code.length), message: 'Unexpected "}": the script closes more braces than it opens' }
  try {
    await transform(body)
  } catch (error) {
    const first = isTransformFailure(error) ? error.errors[0] : undefined
    if (first?.text === 'Unexpected "}"') at = { ...esbuildDiagnostic(code, first, 0), message: EARLY_CLOSE_MESSAGE }
    // Unfinished (`return 1 +`, `foo(1, 2`): the wrapper's own `}` was unexpected, not one of the script's.
    else if (first?.text === 'Unexpected end of file') at = unfinished
    else if (first?.text.endsWith(FOUND_END) === true) at = { ...end, message: `${first.text.slice(0, -FOUND_END.length)}${SCRIPT_ENDED}` }
  }
  return [{ ...at, category: 'error' }]
}
