/**
 * The compile step's fast path (SPEC S9.1; issue 12: start-up): a script that is already plain
 * JavaScript, as most model scripts are (no type annotations, interfaces or enums), needs no
 * TypeScript transform. When V8 parses the wrapped script as strict JavaScript, it is run as
 * written, with a source map that maps each line to itself; esbuild, its service process and
 * the round trip to it are not needed (the first compile of a process cost about 50 ms: loading
 * esbuild and starting its service). The isolate runs on this V8 (isolated-vm uses the host's),
 * so what parses here runs there. Anything V8 refuses (TypeScript syntax, a syntax error) goes to
 * esbuild, which strips the types or reports the error in its words.
 */
import { Script } from 'node:vm'
import { GUARD_PREFIX, GUARD_SUFFIX, mentionsModules, SCRIPT_PREFIX, SCRIPT_SUFFIX, splitLines } from './compile-source.ts'

/**
 * Largest script, in UTF-16 units, tried as plain JavaScript: parsing runs on the calling thread
 * (the host's, for an unchecked run), which must do nothing whose length a script decides beyond
 * a bound (issue 16). 16 K parses in well under a millisecond; longer scripts go to esbuild's
 * own process as before.
 */
export const MAX_PLAIN_SCRIPT_CHARS = 16 * 1024

/**
 * `body` (the script, imports already blanked) as the compile step's JavaScript and source map,
 * when V8 parses it as strict JavaScript inside the guard wrapper (`GUARD_PREFIX`: its braces
 * balance): the code is `body` in `SCRIPT_PREFIX`/`SCRIPT_SUFFIX`, and the map's generated line
 * N + 1 is original line N (the caller adds one preamble line). `undefined` when it does not parse
 * or is longer than {@link MAX_PLAIN_SCRIPT_CHARS}. Never throws.
 */
export function plainJavaScript(body: string): { code: string; map: string } | undefined {
  if (body.length > MAX_PLAIN_SCRIPT_CHARS) return undefined
  try {
    // Compiled, never run. The directive on the first line keeps the line numbers.
    new Script(`'use strict';${GUARD_PREFIX}${body}${GUARD_SUFFIX}`, { filename: 'script.js' })
  } catch {
    return undefined // a SyntaxError, or a RangeError for nesting deeper than the parser's stack
  }
  const code = SCRIPT_PREFIX + body + SCRIPT_SUFFIX
  // Version 3 source map: each generated line's column 0 is the original line's column 0.
  const mappings = `AAAA${';AACA'.repeat(splitLines(code).length - 1)}`
  return { code, map: JSON.stringify({ version: 3, sources: ['script.ts'], names: [], mappings }) }
}

/**
 * Whether `code`, a script that mentions no module (`mentionsModules`), compiles by the fast path
 * ({@link plainJavaScript}): no esbuild is started or waited for.
 */
export function isPlainScript(code: string): boolean {
  return plainJavaScript(code) !== undefined
}

/**
 * A call of `import` or `require`, comments allowed between the word and its parenthesis: the only
 * module uses a script that V8 parses as a plain function body can hold (an import declaration or
 * `import.meta` is a syntax error there).
 */
const MODULE_CALL = /\b(?:import|require)\s*(?:(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*\n)\s*)*\(/

/**
 * Whether `code` may use modules, so that finding them needs TypeScript's parser (a checker, for
 * an unchecked run: `prepare-in-host.ts`): it mentions `import` or `require` (`mentionsModules`)
 * and either calls one of them or is not plain JavaScript ({@link plainJavaScript}). A plain
 * script that only says the words (a comment, a string: "import the rows") is compiled as any
 * other (a checker process took about 450 ms to start for it).
 */
export function mayUseModules(code: string): boolean {
  return mentionsModules(code) && (MODULE_CALL.test(code) || plainJavaScript(code) === undefined)
}
