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

/** The structured change from `before` to `after`: hunks (3 lines of context) and line counts. */
export function describeChange(before: string, after: string): { hunks: Hunk[]; linesAdded: number; linesRemoved: number } {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 })
  const hunks = patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }))
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
