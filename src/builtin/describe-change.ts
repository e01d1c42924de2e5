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
 * The structured change from `before` to `after`: hunks (3 lines of context) and line counts.
 * Only the part between the lines both texts start and end with (and 3 lines of context) is
 * diffed: a review measured one small edit in a file of 190,000 lines at 538 ms of the host's
 * thread (5.2 million lines: 6.6 s), the diff splitting and comparing every line. A change of more
 * than {@link MAX_DIFF_EDITS} lines is one hunk that removes every old line of that part and adds
 * every new one (what changed is then not told apart from what stayed).
 */
export function describeChange(before: string, after: string): { hunks: Hunk[]; linesAdded: number; linesRemoved: number } {
  const { start, oldEnd, newEnd, skippedLines } = changedPart(before, after)
  const oldPart = before.slice(start, oldEnd)
  const newPart = after.slice(start, newEnd)
  const patch = structuredPatch('a', 'b', oldPart, newPart, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS })
  const found = patch === undefined ? wholeReplacement(oldPart, newPart) : patch.hunks
  const hunks = found.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart: oldStart + skippedLines, oldLines, newStart: newStart + skippedLines, newLines, lines }))
  let linesAdded = 0
  let linesRemoved = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) linesAdded++
      else if (line.startsWith('-')) linesRemoved++
    }
  }
  return { hunks, linesAdded, linesRemoved }
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

/** One hunk replacing all of `before` by all of `after`, in `structuredPatch`'s notation. */
function wholeReplacement(before: string, after: string): Hunk[] {
  const old = patchLines(before, '-')
  const added = patchLines(after, '+')
  if (old.count === 0 && added.count === 0) return []
  return [{ oldStart: 1, oldLines: old.count, newStart: 1, newLines: added.count, lines: [...old.lines, ...added.lines] }]
}

/** The lines of `text` prefixed with `sign` (`\r` kept, as the diff keeps it), and the marker when it has no final newline. */
function patchLines(text: string, sign: '-' | '+'): { lines: string[]; count: number } {
  if (text === '') return { lines: [], count: 0 }
  const parts = text.split('\n')
  const ended = parts.at(-1) === ''
  if (ended) parts.pop()
  const lines = parts.map((line) => sign + line)
  if (!ended) lines.push('\\ No newline at end of file')
  return { lines, count: parts.length }
}
