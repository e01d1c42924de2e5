/**
 * `write_file` (SPEC S8, S9.6, S11.1): creates or overwrites a workspace file. Overwriting an
 * existing file passes the `fs/write-gate` first (read-before-edit, fs-observation-policy).
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import { commitWrite, fileChangeValue, prepareWrite, presentChange, proposedDiff, renderChange } from './file-change.ts'
import { assertWellFormed } from './well-formed.ts'

/** Arguments: `content` is the whole new file text. */
export const writeFileParameters = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute inside it. Parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
})

/** Build the tool; canonical value: `FileChangeValue` (see file-change.ts). */
export function writeFileTool(ctx: Context): Tool {
  return defineTool({
    name: 'write_file',
    title: 'Write a file',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description:
      'Create a file, or replace the whole content of an existing one. An existing file must have been read (read_file) first and be unchanged since. ' +
      'For a small change to an existing file prefer edit_file.',
    parameters: writeFileParameters,
    output: {
      schema: fileChangeValue,
      render: (_args, value) => [{ type: 'text', text: renderChange(value) }],
    },
    async execute(args, exec) {
      assertWellFormed(args.content, '`content`')
      const { file, before } = await prepareWrite(ctx, exec, args.path)
      return commitWrite(ctx, exec, 'write_file', file, before, args.content)
    },
    // Pending: the new content, as a diff from /dev/null with `created` left out: whether the file
    // exists, and its old content, are not known without I/O (S11.3), so the card may stand for an
    // overwrite (formatCard says "creates the file, or overwrites it"), and its hunk header has no
    // line numbers (`@@ proposed @@`); the completed card knows.
    presentCall: (args) => ({ card: 'diff', phase: 'pending', path: args.path, diff: proposedDiff(args.path, '', args.content, true) }),
    presentResult: (_args, result) => presentChange(result),
  })
}
