/**
 * Hunk headers of a proposed change (SPEC S11.1, S11.3): a pending diff card is built from the
 * call's arguments alone (no I/O before approval), so where its hunks land in the file is not
 * known. Its hunk headers read `@@ proposed @@` instead of line numbers that would be made up
 * (an edit at line 60,000 showed `@@ -1,1 +1,3 @@`). Pure.
 */

/** The header of a hunk whose place in the file is not known. */
export const PROPOSED_HUNK_HEADER = '@@ proposed @@'

/** A unified diff hunk header's line ranges: `@@ -7,2 +7,3 @@` (a count of 1 may be left out). */
const NUMBERED_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/

/**
 * `line` with the line ranges of a hunk header replaced by {@link PROPOSED_HUNK_HEADER} (text
 * after the header, a section heading, stays); any other line unchanged.
 */
export function proposedHunkLine(line: string): string {
  return line.replace(NUMBERED_HEADER, PROPOSED_HUNK_HEADER)
}

/**
 * `diff`, a unified diff, with every hunk header made {@link proposedHunkLine}: a line starting
 * with `@@` is always a header (file headers start `---`/`+++`, hunk lines ` `, `+`, `-` or `\`).
 */
export function withoutLineNumbers(diff: string): string {
  return diff.split('\n').map(proposedHunkLine).join('\n')
}
