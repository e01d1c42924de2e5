/**
 * Plain terminal text for any card (SPEC S11.1, S11.3): what `ptc run` prints for each tool call
 * in human mode. Pure and deterministic (no clock, no environment, no colour detection): the same
 * card always gives the same bytes, so a journal replayed through it can be compared byte for
 * byte. Never throws: a malformed card is printed as its JSON.
 */
import type { Card, DiffCard, GenericCard, ReadCard, SearchCard, TerminalCard, WebCard } from '../tools/cards.ts'
import { terminalSafe } from '../terminal-safe.ts'
import { proposedHunkLine } from './proposed-hunks.ts'

/** Formatting options. */
export interface FormatCardOptions {
  /** Most body lines printed per card; the rest are summarized in one line. Default {@link DEFAULT_MAX_CARD_LINES} (12). */
  maxLines?: number
}

/** Default `maxLines`: a card previews a dozen lines, so a run of many reads stays readable. */
export const DEFAULT_MAX_CARD_LINES = 12

/**
 * Format `card` as terminal text: a header line, then body lines indented by two spaces, with no
 * trailing newline. Header marks: `…` pending (`… $` a command about to run), `✓` done, `✗` error, `$` a command, `~` a modified
 * file, `+` a created file. A pending diff's hunk headers read `@@ proposed @@`, without line numbers.
 */
export function formatCard(card: Card, options: FormatCardOptions = {}): string {
  const maxLines = options.maxLines !== undefined && Number.isInteger(options.maxLines) && options.maxLines >= 0 ? options.maxLines : DEFAULT_MAX_CARD_LINES
  // Made terminal-safe whole, again: fields printed as they are (a number that is a string in a
  // malformed card) and the JSON fallback, which leaves C1 characters as they are (a review).
  try {
    const lines = linesOf(card)
    if (lines) return terminalSafe([lines.header, ...cap(lines.body, maxLines, lines.worth).map((line) => `  ${line}`)].join('\n'))
  } catch {}
  return terminalSafe(`• card ${safeJson(card)}`)
}

/**
 * A card as terminal lines. `worth` is how many lines a body line stands for when it is cut
 * (default 1): a diff's "not listed" marker stands for the lines it counts.
 */
interface CardLines {
  header: string
  body: string[]
  worth?: (line: string) => number
}

function linesOf(card: Card): CardLines | undefined {
  switch (card?.card) {
    case 'generic':
      return generic(card)
    case 'terminal':
      return terminal(card)
    case 'diff':
      return diff(card)
    case 'read':
      return read(card)
    case 'search':
      return search(card)
    case 'web':
      return web(card)
    default:
      return undefined
  }
}

function generic(card: GenericCard): { header: string; body: string[] } {
  const mark = card.phase === 'pending' ? '…' : card.isError ? '✗' : '✓'
  const body: string[] = []
  if (card.locations?.length) body.push(`at ${card.locations.map((location) => text(location.line ? `${location.path}:${location.line}` : location.path)).join(', ')}`)
  if (card.body) body.push(...split(card.body))
  return { header: `${mark} ${text(card.title)}`, body }
}

function terminal(card: TerminalCard): { header: string; body: string[] } {
  const where = card.cwd ? ` (in ${text(card.cwd)})` : ''
  const background = card.background ? ' [background]' : ''
  if (card.phase === 'pending') return { header: `… $ ${text(card.command)}${where}${background}`, body: [] }
  const body = card.output ? split(card.output.replace(/\n$/, '')) : []
  const status = card.signal ? `killed by ${card.signal}` : card.exitCode === null || card.exitCode === undefined ? 'no exit code' : `exit ${card.exitCode}`
  const mark = card.exitCode === 0 && !card.signal ? '✓' : '✗'
  return { header: `$ ${text(card.command)}${where}${background}`, body: [...body, `${mark} ${status}`] }
}

/**
 * The marker `describeChange` (builtin/describe-change.ts) ends a listing it cut with: the value's
 * `omittedLines`, the changed lines it does not list (S9.6).
 */
const NOT_LISTED = /^\\ (\d+) more changed lines? not listed$/

function diff(card: DiffCard): CardLines {
  const mark = card.phase === 'pending' ? '…' : card.created ? '+' : '~'
  // A pending diff from /dev/null is write_file's new content: whether the file exists is not
  // known without I/O (S11.3), so it may be an overwrite; only the completed card knows.
  const wholeContent = card.phase === 'pending' && card.created === undefined && card.diff?.startsWith('--- /dev/null\n') === true
  const what = wholeContent ? ' (proposed content: creates the file, or overwrites it if it exists)' : card.phase === 'pending' ? ' (proposed)' : card.created ? ' (created)' : ''
  const lines = card.diff ? withoutFileHeader(split(card.diff.replace(/\n$/, ''))) : []
  // Built from the call's arguments alone (S11.3): where a proposed hunk lands is not known, so
  // any line numbers in its header would be made up; the completed card has the real ones.
  const body = card.phase === 'pending' ? lines.map(proposedHunkLine) : lines
  return { header: `${mark} ${text(card.path)}${what}`, body, worth: (line) => Number(NOT_LISTED.exec(line)?.[1] ?? 1) }
}

/**
 * A unified diff's lines without its file header (`Index:`, `===`, `---`, `+++`), which comes
 * before the first hunk: inside a hunk, a removed line reading `-- x` is `--- x` and stays.
 */
function withoutFileHeader(lines: string[]): string[] {
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'))
  return firstHunk === -1 ? lines.filter((line) => !/^(Index: |=+$|--- |\+\+\+ )/.test(line)) : lines.slice(firstHunk)
}

function read(card: ReadCard): { header: string; body: string[] } {
  const end = card.startLine + card.lines.length - 1
  const range = card.lines.length ? ` (lines ${card.startLine}-${end})` : ' (empty)'
  const width = String(Math.max(end, 1)).length
  return { header: `✓ read ${text(card.path)}${range}`, body: card.lines.map((line, index) => `${String(card.startLine + index).padStart(width)} │ ${text(line)}`) }
}

function search(card: SearchCard): { header: string; body: string[] } {
  if (card.groups) {
    const count = card.groups.reduce((sum, group) => sum + group.matches.length, 0)
    const body: string[] = []
    for (const group of card.groups) {
      body.push(text(group.path))
      for (const match of group.matches) body.push(`  ${match.line}: ${text(match.text)}`)
    }
    return { header: `✓ search ${text(card.query)}: ${count} match${count === 1 ? '' : 'es'} in ${card.groups.length} file${card.groups.length === 1 ? '' : 's'}`, body }
  }
  const paths = card.paths ?? []
  return { header: `✓ ${text(card.query)}: ${paths.length} path${paths.length === 1 ? '' : 's'}`, body: paths.map(text) }
}

function web(card: WebCard): { header: string; body: string[] } {
  const target = card.kind === 'fetch' ? (card.url ?? '') : JSON.stringify(card.query ?? '')
  return { header: `✓ web ${card.kind} ${text(target)}`, body: card.title ? [text(card.title)] : [] }
}

/** The first `max` of `lines`, then `… N more lines`, N the `worth` of the lines cut. */
function cap(lines: string[], max: number, worth: (line: string) => number = () => 1): string[] {
  if (lines.length <= max) return lines
  const more = lines.slice(max).reduce((sum, line) => sum + worth(line), 0)
  return [...lines.slice(0, max), `… ${more} more line${more === 1 ? '' : 's'}`]
}

function split(value: string): string[] {
  return text(value).split('\n')
}

/** Strings only; control characters other than newline and tab are made visible, so output cannot drive the terminal. */
function text(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError('not a string')
  return terminalSafe(value)
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return '(unprintable)'
  }
}
