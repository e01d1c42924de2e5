/**
 * What the model reads of a type check (SPEC S9.1): TypeScript's findings turned into
 * {@link Diagnostic}s that point at the script and say what to do. Pure: the type checker
 * (`type-checker.ts`) gathers the facts, this decides the wording, so the tests of this file show
 * exactly what a model reads.
 */
import type { Diagnostic } from './compile-diagnostics.ts'

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

/** How many tool names an unknown-tool message lists in full; beyond it, only the closest ones. */
const MAX_LISTED_TOOLS = 40

/**
 * The diagnostics to report, sorted by position: related hints appended to their finding's
 * message (`\n2:11 Did you forget to use 'await'?`), knock-on implicit-any errors dropped when an
 * earlier error sits on the same line, and an unknown tool name reported as
 * `There is no tool named 'raed_file'. Did you mean 'read_file'? The tools are: …` instead of
 * TypeScript's dump of the whole `tools` type.
 */
export function refineDiagnostics(findings: readonly CheckerFinding[]): Diagnostic[] {
  const sorted = [...findings].sort((a, b) => a.line - b.line || a.column - b.column)
  const linesWithErrors = new Set<number>()
  const out: Diagnostic[] = []
  for (const finding of sorted) {
    const isError = finding.category === 'error'
    if (isError && finding.code !== undefined && KNOCK_ON_CODES.has(finding.code) && linesWithErrors.has(finding.line)) continue
    if (isError) linesWithErrors.add(finding.line)
    let message = finding.unknownTool ? unknownToolMessage(finding.unknownTool.name, finding.unknownTool.available) : finding.message
    for (const hint of finding.related ?? []) message += `\n${hint.line}:${hint.column} ${hint.message}`
    out.push({ line: finding.line, column: finding.column, message, ...(finding.code !== undefined && { code: finding.code }), category: finding.category })
  }
  return out
}

/** `There is no tool named 'x'. Did you mean 'y'? The tools are: a, b, c.` */
export function unknownToolMessage(name: string, available: readonly string[]): string {
  const sorted = [...available].sort()
  const closest = closestNames(name, sorted)
  const suggestion = closest.length > 0 ? ` Did you mean ${closest.map((candidate) => `'${candidate}'`).join(' or ')}?` : ''
  const listed =
    sorted.length === 0
      ? ' No tools are available.'
      : sorted.length <= MAX_LISTED_TOOLS
        ? ` The tools are: ${sorted.join(', ')}.`
        : ` There are ${sorted.length} tools; see the declarations for the full list.`
  return `There is no tool named '${name}'.${suggestion}${listed}`
}

/** Up to three names within a small edit distance of `name` (or containing it), closest first. */
function closestNames(name: string, names: readonly string[]): string[] {
  const wanted = name.toLowerCase()
  const limit = Math.max(2, Math.floor(wanted.length / 3))
  return names
    .map((candidate) => {
      const lower = candidate.toLowerCase()
      const distance = lower.includes(wanted) || wanted.includes(lower) ? 1 : editDistance(wanted, lower)
      return { candidate, distance }
    })
    .filter(({ distance }) => distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate)
}

/** Levenshtein distance with adjacent transpositions counted as one edit (`raed` → `read`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}
