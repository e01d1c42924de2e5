/**
 * Structured diff hunks of a file change (SPEC S11 diff card, S1.2 canonical value of the fs
 * write tools), made with the `diff` package.
 */
import { structuredPatch } from 'diff'
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
 * 232 ms, 5,000 after 1.6 s. Past it the change is one hunk replacing the whole text.
 */
export const MAX_DIFF_EDITS = 500

/**
 * The structured change from `before` to `after`: hunks (3 lines of context) and line counts.
 * A change of more than {@link MAX_DIFF_EDITS} lines is one hunk that removes every old line and
 * adds every new one (what changed is then not told apart from what stayed).
 */
export function describeChange(before: string, after: string): { hunks: Hunk[]; linesAdded: number; linesRemoved: number } {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS })
  const hunks = patch === undefined ? wholeReplacement(before, after) : patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }))
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
