/**
 * `edit_file` (SPEC S8, S9.6, S11.1): replaces an exact text in an existing workspace file. The
 * file must pass the `fs/write-gate` (read-before-edit, fs-observation-policy).
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import { assertWritable, commitWrite, fileChangeValue, prepareWrite, presentChange, proposedDiff, renderChange } from './file-change.ts'
import { assertUtf8Text } from './text-encoding.ts'
import { assertWellFormed } from './well-formed.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Arguments: `old` must occur exactly once unless `replaceAll`; `new` replaces it. */
export const editFileParameters = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute inside it.'),
  old: z.string().min(1).describe('The exact text to replace, including whitespace and indentation.'),
  new: z.string().describe('The replacement text.'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false).'),
})

/** Canonical value: a `FileChangeValue` plus `replacements`, how many occurrences were replaced. */
export const editFileValue = fileChangeValue.extend({ replacements: z.number().int() })

/** Count non-overlapping occurrences of `needle` (non-empty) in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++
  return count
}

/** A snippet as whole lines, so its pending diff carries no "No newline at end of file" noise. */
function asLines(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}

/** Build the tool. */
export function editFileTool(ctx: Context): Tool {
  return defineTool({
    name: 'edit_file',
    title: 'Edit a file',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    description:
      'Replace exact text in an existing file: `old` must match the file exactly (whitespace included) and occur once, ' +
      'unless `replaceAll` is true. Read the file (read_file) first; it must be unchanged since.',
    parameters: editFileParameters,
    output: {
      schema: editFileValue,
      render: (_args, value) => [{ type: 'text', text: renderChange(value, `, ${value.replacements} replacement${value.replacements === 1 ? '' : 's'}`) }],
    },
    async execute(args, exec) {
      assertWellFormed(args.old, '`old`')
      assertWellFormed(args.new, '`new`')
      const { file, before } = await prepareWrite(ctx, exec, args.path)
      if (!before) throw new WorkspaceToolError('invalid-request', `${args.path} does not exist (resolved to ${file}); use write_file to create a file.`, { path: file })
      if (args.old === args.new) throw new WorkspaceToolError('invalid-request', '`old` and `new` are identical; nothing would change.', { path: file })
      let found = 0
      // The new text is made once the write gate passed (read-before-edit, S8): a file changed since
      // it was read gets "read it again", not a verdict on `old` against text the model has not seen.
      const change = await commitWrite(ctx, exec, 'edit_file', file, before, () => {
        assertUtf8Text(before.bytes, args.path, file, 'editing it would replace every such byte in the file, so nothing was changed.')
        found = countOccurrences(before.text, args.old)
        if (found === 0) {
          throw new WorkspaceToolError(
            'invalid-request',
            `The text in \`old\` was not found in ${args.path}. It must match exactly, including whitespace and indentation; read the file again and copy the text.`,
            { path: file, matches: 0 },
          )
        }
        if (found > 1 && args.replaceAll !== true) {
          throw new WorkspaceToolError(
            'invalid-request',
            `The text in \`old\` occurs ${found} times in ${args.path}. Include more surrounding lines to make it unique, or set replaceAll: true to replace all ${found}.`,
            { path: file, matches: found },
          )
        }
        // Exact, before the text is made: every occurrence's bytes are replaced by `new`'s.
        assertWritable(before.bytes.length + found * (Buffer.byteLength(args.new) - Buffer.byteLength(args.old)), file)
        // split/join, not String.replace: `new` may contain `$&` and friends.
        return before.text.split(args.old).join(args.new)
      })
      return { ...change, replacements: found }
    },
    // Pending: the replacement itself (pure; line numbers are unknown without reading the file, so
    // its hunk header reads `@@ proposed @@`).
    presentCall: (args) => ({ card: 'diff', phase: 'pending', path: args.path, diff: proposedDiff(args.path, asLines(args.old), asLines(args.new)) }),
    presentResult: (_args, result) => presentChange(result),
  })
}
