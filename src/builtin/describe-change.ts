/**
 * Structured diff hunks of a file change (SPEC S11 diff card, S1.2 canonical value of the fs
 * write tools), made with the `diff` package.
 */
// The one module of `diff` it needs (5 modules instead of the package entry's 19: 10 ms of every host's start).
import { structuredPatch } from 'diff/lib/patch/create.js'
import { z } from 'zod'

/**
 * One hunk of a change, as the `diff` package's `structuredPatch` makes it: 1-based starts, line
 * counts, and `lines` each prefixed with `' '` (context), `'-'` (removed) or `'+'` (added).
 */
export const hunkSchema = z.object({
  oldStart: z.number().int(),
  oldLines: z.number().int(),
  newStart: z.number().int(),
  newLines: z.number().int(),
  lines: z.array(z.string()),
})

/** A change hunk (see {@link hunkSchema}). */
export type Hunk = z.output<typeof hunkSchema>

/**
 * The most lines a change may add and remove together and still be diffed line by line. The
 * diff's cost grows with the square of that number, on the host's thread: a review measured an
 * edit_file changing 16,000 lines at 29 s, every session stalled. Measured here (2026-12-04, a
 * 20,000-line file with every line changed): a limit of 500 gives up after 26 ms, 2,000 after
 * 232 ms, 5,000 after 1.6 s. Past it the changed part is one hunk replacing it whole.
 */
export const MAX_DIFF_EDITS = 500

/**
 * The most lines (old and new together) of the changed part that are diffed line by line: the
 * diff's cost is about that number times {@link MAX_DIFF_EDITS} even when it gives up, and it runs
 * on the host's thread (a security review: a write_file of 4 million newlines held it 7 s).
 * Past it the changed part is one hunk replacing it whole.
 */
export const MAX_DIFFED_LINES = 20_000

/**
 * The most characters of hunk lines the value lists, each line charged 3 more for its JSON quotes
 * and comma (S9.6: a value a script can hold; the result's `maxCrossingBytes` is 8 MiB, and a
 * review wrote a file whose full listing was 16 MB, so the call failed after the file was
 * written). The rest is counted in `omittedLines`, and the last hunk listed ends with a
 * `\ N more changed lines not listed` line (`\` lines are comments in a unified diff). A line
 * longer than what is left is cut with `…`.
 */
export const MAX_LISTED_CHARS = 256 * 1024

/** What one listed line costs of {@link MAX_LISTED_CHARS}. */
const listingCost = (line: string): number => line.length + 3

/** What {@link describeChange} gives: the value's hunks and counts. */
export interface Change {
  hunks: Hunk[]
  /** Lines added and removed by the whole change (listed or not). */
  linesAdded: number
  linesRemoved: number
  /** Changed lines not listed in `hunks` (absent when every line is). */
  omittedLines?: number
}

/**
 * The structured change from `before` to `after`: hunks (3 lines of context) and line counts.
 * Only the part between the lines both texts start and end with (and 3 lines of context) is
 * diffed: a review measured one small edit in a file of 190,000 lines at 538 ms of the host's
 * thread (5.2 million lines: 6.6 s), the diff splitting and comparing every line. A change of more
 * than {@link MAX_DIFF_EDITS} lines, or of a part over {@link MAX_DIFFED_LINES} lines, is one hunk
 * that removes every old line of that part and adds every new one (what changed is then not told
 * apart from what stayed). At most {@link MAX_LISTED_CHARS} characters of lines are listed.
 */
export function describeChange(before: string, after: string): Change {
  const { start, oldEnd, newEnd, skippedLines } = changedPart(before, after)
  const oldPart = before.slice(start, oldEnd)
  const newPart = after.slice(start, newEnd)
  const oldCount = countLines(oldPart)
  const newCount = countLines(newPart)
  const patch = oldCount + newCount <= MAX_DIFFED_LINES ? structuredPatch('a', 'b', oldPart, newPart, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS }) : undefined
  if (patch === undefined) return wholeReplacement({ text: oldPart, count: oldCount }, { text: newPart, count: newCount }, skippedLines)
  const hunks = patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart: oldStart + skippedLines, oldLines, newStart: newStart + skippedLines, newLines, lines }))
  let linesAdded = 0
  let linesRemoved = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) linesAdded++
      else if (line.startsWith('-')) linesRemoved++
    }
  }
  return listed({ hunks, linesAdded, linesRemoved })
}

/**
 * `change` with its hunks' lines cut to {@link MAX_LISTED_CHARS} characters (see there);
 * `notMade` changed lines were already left out of its last hunk. One marker line, at the end of
 * the last hunk listed, counts what is not.
 */
function listed(change: Change, notMade = 0): Change {
  let left = MAX_LISTED_CHARS
  let omitted = notMade
  const hunks: Hunk[] = []
  for (const hunk of change.hunks) {
    if (left <= 0) {
      omitted += changedLines(hunk.lines)
      continue
    }
    const cut = listHunk(hunk.lines, left)
    left -= cut.cost
    omitted += cut.omitted
    hunks.push({ ...hunk, lines: cut.lines })
  }
  if (omitted === 0) return { ...change, hunks }
  hunks.at(-1)?.lines.push(`\\ ${omitted} more changed line${omitted === 1 ? '' : 's'} not listed`)
  return { ...change, hunks, omittedLines: omitted }
}

/**
 * The lines of one hunk that fit in `budget` characters, in order. When they do not all fit, the
 * added lines and the rest (removed and context) each get at least half of it, or all they need:
 * a file of 30,000 lines overwritten with one still lists that one (a trial saw only removed
 * lines). A side stops at its first line that does not fit (a line longer than what is left is cut
 * with `…`, but never to its sign alone).
 */
function listHunk(all: readonly string[], budget: number): { lines: string[]; cost: number; omitted: number } {
  let addedCost = 0
  let otherCost = 0
  for (const line of all) {
    if (line.startsWith('+')) addedCost += listingCost(line)
    else otherCost += listingCost(line)
  }
  const otherBudget = addedCost + otherCost <= budget ? otherCost : Math.min(otherCost, Math.max(budget / 2, budget - addedCost))
  const left = { other: otherBudget, added: budget - otherBudget }
  const stopped = { other: false, added: false }
  const lines: string[] = []
  let omitted = 0
  for (const line of all) {
    const side = line.startsWith('+') ? 'added' : 'other'
    const cost = listingCost(line)
    // Stop where not even the start of a line fits (a line cut to its sign would read as an empty one).
    if (stopped[side] || left[side] <= 0 || (cost > left[side] && left[side] < 16)) {
      stopped[side] = true
      if (line.startsWith('+') || line.startsWith('-')) omitted++
      continue
    }
    lines.push(cost <= left[side] ? line : `${line.slice(0, Math.max(1, left[side] - 3))}…`)
    left[side] -= cost
  }
  return { lines, cost: budget - Math.max(0, left.other) - Math.max(0, left.added), omitted }
}

/** How many of `lines` add or remove a line. */
function changedLines(lines: readonly string[]): number {
  let count = 0
  for (const line of lines) if (line.startsWith('+') || line.startsWith('-')) count++
  return count
}

/** Lines of `text`, as the diff counts them (a last line without a newline counts). Linear, no split. */
function countLines(text: string): number {
  if (text === '') return 0
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  return text.endsWith('\n') ? count : count + 1
}

/** Lines of context kept around the changed part (the hunks' own). */
const CONTEXT = 3

/**
 * Where `before` and `after` differ, in whole lines: both start with the same `start` characters
 * (`skippedLines` lines) and end with the same text from `oldEnd` / `newEnd` on, each boundary
 * moved {@link CONTEXT} lines further out so the hunks keep their context. Linear, no line split.
 */
function changedPart(before: string, after: string): { start: number; oldEnd: number; newEnd: number; skippedLines: number } {
  const shorter = Math.min(before.length, after.length)
  let same = 0
  while (same < shorter && before.charCodeAt(same) === after.charCodeAt(same)) same++
  let start = lineStartOf(before, same) // the start of the line the first difference is on
  for (let line = 0; line < CONTEXT && start > 0; line++) start = lineStartOf(before, start - 1)
  let tail = 0
  while (tail < shorter - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++
  // The common tail, cut to whole lines: it starts right after a newline (or is empty).
  let oldEnd = before.length - tail
  if (oldEnd > start && before.charCodeAt(oldEnd - 1) !== 10) oldEnd = nextLineStart(before, oldEnd)
  for (let line = 0; line < CONTEXT && oldEnd < before.length; line++) oldEnd = nextLineStart(before, oldEnd)
  const newEnd = after.length - (before.length - oldEnd)
  let skippedLines = 0
  for (let at = before.indexOf('\n'); at !== -1 && at < start; at = before.indexOf('\n', at + 1)) skippedLines++
  return { start, oldEnd, newEnd, skippedLines }
}

/** The start of the line holding index `at` (0 for the first line; `lastIndexOf` reads a negative start as 0). */
function lineStartOf(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1
}

/** The index just after the next newline at or after `from`, or the text's end. */
function nextLineStart(text: string, from: number): number {
  const newline = text.indexOf('\n', from)
  return newline === -1 ? text.length : newline + 1
}

/** A part of a text and its line count ({@link countLines}). */
interface Part {
  text: string
  count: number
}

/**
 * One hunk replacing all of `before` by all of `after`, in `structuredPatch`'s notation, starting
 * after `skippedLines`, listed as {@link listed} does. Lines are made only while
 * {@link MAX_LISTED_CHARS} lasts (a part can have millions); the counts are of all of them.
 */
function wholeReplacement(before: Part, after: Part, skippedLines: number): Change {
  // Each side made up to the whole budget: `listed` shares it between them.
  const old = patchLines(before, '-', MAX_LISTED_CHARS)
  const added = patchLines(after, '+', MAX_LISTED_CHARS)
  if (old.count === 0 && added.count === 0) return { hunks: [], linesAdded: 0, linesRemoved: 0 }
  const hunk = { oldStart: 1 + skippedLines, oldLines: old.count, newStart: 1 + skippedLines, newLines: added.count, lines: [...old.lines, ...added.lines] }
  return listed({ hunks: [hunk], linesAdded: added.count, linesRemoved: old.count }, old.count + added.count - old.made - added.made)
}

/**
 * The lines of `part` prefixed with `sign` (`\r` kept, as the diff keeps it), and the marker when
 * it has no final newline, made while `budget` characters last; `count` is of all its lines.
 */
function patchLines({ text, count }: Part, sign: '-' | '+', budget: number): { lines: string[]; count: number; made: number; chars: number } {
  const lines: string[] = []
  let chars = 0
  let from = 0
  while (from < text.length && chars < budget) {
    const newline = text.indexOf('\n', from)
    const line = sign + text.slice(from, newline === -1 ? text.length : newline)
    lines.push(line)
    chars += listingCost(line)
    from = newline === -1 ? text.length : newline + 1
  }
  if (lines.length === count && count > 0 && !text.endsWith('\n')) lines.push('\\ No newline at end of file')
  return { lines, count, made: lines.length - (lines.length > count ? 1 : 0), chars }
}
