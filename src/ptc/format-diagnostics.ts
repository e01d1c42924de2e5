/**
 * What the model reads of a type check (SPEC S9.1): TypeScript's findings turned into
 * {@link Diagnostic}s that point at the script and say what to do. Pure: the type checker
 * (`type-checker.ts`) gathers the facts, this decides the wording, so the tests of this file show
 * exactly what a model reads.
 */
import { unknownToolMessage } from '../../runtime/unknown-tool.ts'
import { type Diagnostic, NOT_A_MODULE } from './compile-diagnostics.ts'

/** The same wording the isolate's `tools` throws without a type check (`runtime/unknown-tool.ts`). */
export { unknownToolMessage }

/** One TypeScript finding, already in the user's coordinates, with what the checker knows about it. */
export interface CheckerFinding extends Diagnostic {
  /** TypeScript's related information in the script ("Did you forget to use 'await'?" at the call). */
  related?: readonly { line: number; column: number; message: string }[]
  /** Set when the finding is `tools.<name>` with no such tool: the name used and every tool name. */
  unknownTool?: { name: string; available: readonly string[] }
}

/**
 * "implicitly has an 'any' type" errors (TS7005, 7006, 7019, 7031, 7034): after an earlier error
 * on the same line they are almost always its knock-on effect (the callback of `.map` on a value
 * whose type is already an error), and fixing the first removes them.
 */
const KNOCK_ON_CODES: ReadonlySet<number> = new Set([7005, 7006, 7019, 7031, 7034])

/**
 * "Cannot find name 'process'. Do you need to install type definitions for node? Try `npm i
 * --save-dev @types/node`…" (TS2580, 2591), the same for jQuery (2581, 2592), test runners (2582,
 * 2593), Bun (2867, 2868) and the DOM library (2584): advice about a project's packages and
 * tsconfig, which a script has neither of.
 */
const MISSING_PLATFORM_CODES: ReadonlySet<number> = new Set([2580, 2581, 2582, 2584, 2591, 2592, 2593, 2867, 2868])

/** What a script is told instead of {@link MISSING_PLATFORM_CODES}' advice (README, "What a script can use"). */
export function missingPlatformMessage(name: string): string {
  return `Cannot find name '${name}': a script has only the ECMAScript built-ins, tools, ToolCallError and console; no Node.js or browser APIs (process, require, Buffer, fetch, setTimeout, document…). Reach files, commands and the network through tools.`
}

/**
 * Globals of Node.js and browsers that TypeScript reports as a plain "Cannot find name" (TS2304),
 * with no advice: a script reaching for one is told what {@link missingPlatformMessage} says.
 */
const HOST_GLOBALS: ReadonlySet<string> = new Set([
  'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask',
  'structuredClone', 'fetch', 'Request', 'Response', 'Headers', 'FormData', 'URL', 'URLSearchParams', 'TextEncoder',
  'TextDecoder', 'atob', 'btoa', 'performance', 'crypto', 'AbortController', 'AbortSignal', 'Blob', 'File', 'WebSocket',
  'EventTarget', 'Event', 'localStorage', 'sessionStorage', 'navigator', 'location', 'window', 'self', 'global',
  '__dirname', '__filename', 'exports', 'Deno', 'Bun',
])

/** Globals a script's realm lacks although ES2025 has them (`runtime/removed-globals.ts`). */
const REMOVED_FROM_SCRIPTS: ReadonlySet<string> = new Set(['SharedArrayBuffer', 'Atomics'])

/**
 * The message for a name TypeScript could not find with advice for a project (packages, tsconfig,
 * {@link MISSING_PLATFORM_CODES}), or `undefined` for any other finding. "Change your target
 * library" (TS2583 for a name, TS2550 for a property) becomes: not in scripts (shared memory), or
 * not in ES2025, the library scripts are checked against.
 */
function missingNameMessage(finding: CheckerFinding): string | undefined {
  if (finding.code === 2550) {
    // "Property 'union' does not exist on type 'Set<number>'. Do you need to change your target library?…"
    const property = /^(Property '[^']+' does not exist on type '.*')\. Do you need to change your target library\?/s.exec(finding.message)?.[1]
    return property === undefined ? undefined : `${property}: scripts are checked against ES2025, which does not have it; use what ES2025 has.`
  }
  if (finding.code === undefined || (finding.code !== 2583 && finding.code !== 2304 && !MISSING_PLATFORM_CODES.has(finding.code))) return undefined
  const name = /^Cannot find name '([^']+)'/.exec(finding.message)?.[1]
  if (name === undefined) return undefined
  if (finding.code === 2304) return HOST_GLOBALS.has(name) ? missingPlatformMessage(name) : undefined
  if (finding.code !== 2583) return missingPlatformMessage(name)
  return REMOVED_FROM_SCRIPTS.has(name)
    ? `Cannot find name '${name}': scripts have no shared memory (SharedArrayBuffer, Atomics).`
    : `Cannot find name '${name}': it is not in ES2025, the ECMAScript version scripts are checked against.`
}

/**
 * The diagnostics to report, sorted by position: related hints appended to their finding's
 * message (`\n2:11 Did you forget to use 'await'?`), knock-on implicit-any errors dropped when an
 * earlier error sits on the same line, an unknown tool name reported as
 * `There is no tool named 'raed_file'. Did you mean 'read_file'? The tools are: …` instead of
 * TypeScript's dump of the whole `tools` type, and a missing Node.js or browser global said to be
 * absent from scripts ({@link missingPlatformMessage}) instead of TypeScript's package advice.
 * At most {@link MAX_DIAGNOSTICS}, then one that counts the rest.
 */
export function refineDiagnostics(findings: readonly CheckerFinding[]): Diagnostic[] {
  const sorted = [...findings].sort((a, b) => a.line - b.line || a.column - b.column)
  const linesWithErrors = new Set<number>()
  const out: Diagnostic[] = []
  for (const finding of sorted) {
    const isError = finding.category === 'error'
    if (isError && finding.code !== undefined && KNOCK_ON_CODES.has(finding.code) && linesWithErrors.has(finding.line)) continue
    if (isError) linesWithErrors.add(finding.line)
    let message = finding.unknownTool ? unknownToolMessage(finding.unknownTool.name, finding.unknownTool.available) : (missingNameMessage(finding) ?? finding.message)
    // "Modifiers cannot appear here." (TS1184): mostly `export` at the top of a script.
    if (finding.code === 1184) message = `${message.replace(/\.$/, '')}: ${NOT_A_MODULE}.`
    for (const hint of finding.related ?? []) message += `\n${hint.line}:${hint.column} ${hint.message}`
    out.push({ line: finding.line, column: finding.column, message, ...(finding.code !== undefined && { code: finding.code }), category: finding.category })
  }
  return capDiagnostics(out)
}

/**
 * Most diagnostics reported for one check. A 150 KB script of 20,000 lines each misusing one
 * object gave 10.9 MB of diagnostics, more than an MCP client reads in one message (10 MiB over
 * stdio); a model fixes the first ones and checks again.
 */
export const MAX_DIAGNOSTICS = 100

/** The first {@link MAX_DIAGNOSTICS} of `diagnostics`, and in place of the rest one that counts them. */
function capDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  if (diagnostics.length <= MAX_DIAGNOSTICS) return diagnostics
  const rest = diagnostics.slice(MAX_DIAGNOSTICS)
  const errors = rest.filter((diagnostic) => diagnostic.category === 'error').length
  return [...diagnostics.slice(0, MAX_DIAGNOSTICS), hiddenDiagnostics(rest[0]!, rest.length, errors)]
}

/**
 * The line standing for `hidden` diagnostics past {@link MAX_DIAGNOSTICS} (`errors` of them
 * errors), at the first of them (`first`); {@link countErrors} reads its count back.
 */
export function hiddenDiagnostics(first: { line: number; column: number }, hidden: number, errors: number): Diagnostic {
  const counted = `${hidden} more diagnostics (${errors} of them errors) from line ${first.line} on are not shown`
  return { line: first.line, column: first.column, category: errors > 0 ? 'error' : 'warning', message: `${counted}: fix the ones above and check again.` }
}

// Matches the count line {@link hiddenDiagnostics} makes.
const HIDDEN_COUNT = /^\d+ more diagnostics \((\d+) of them errors\) from line \d+ on are not shown: /

/**
 * How many errors `diagnostics` stand for: the errors listed, and those counted by the line that
 * replaces the ones past {@link MAX_DIAGNOSTICS} (which is not an error of its own).
 */
export function countErrors(diagnostics: readonly Diagnostic[]): number {
  let errors = 0
  for (const diagnostic of diagnostics) {
    const hidden = HIDDEN_COUNT.exec(diagnostic.message)
    if (hidden !== null) errors += Number(hidden[1])
    else if (diagnostic.category === 'error') errors++
  }
  return errors
}
