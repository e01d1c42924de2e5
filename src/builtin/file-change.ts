/**
 * What write_file and edit_file share (SPEC S8, S9.6, S11.1): the canonical "what changed" value,
 * the gated write itself (resolve → snapshot → `fs/write-gate` → write → `fs/written`), and the
 * diff card built from the value's hunks by the `diff` package (pure, S11.3).
 */
import { isUtf8 } from 'node:buffer'
import fs from 'node:fs'
import { promisify } from 'node:util'
import type { Context } from 'cordis'
import { formatPatch } from 'diff/lib/patch/create.js'
import { z } from 'zod'
import { ToolDeniedError } from '../errors/ptc-error.ts'
import { withoutLineNumbers } from '../present/proposed-hunks.ts'
import type { DiffCard } from '../tools/cards.ts'
import type { ToolExecution, ToolResult } from '../tools/types.ts'
import { writeFd } from '../workspace/safe-fs.ts'
import { describeChange, hunkSchema, type Hunk } from './describe-change.ts'
import { type FileSnapshot, readSnapshot, sha256 } from './file-snapshot.ts'
import { areaForCall, openForTool, passWriteGate, resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

const ftruncate = promisify(fs.ftruncate)

/** Largest file the writers read back or write, in bytes (10 MiB). */
export const MAX_WRITE_BYTES = 10 * 1024 * 1024

/**
 * Canonical value of a file change (S9.6): `path` the absolute, symlink-free path written;
 * `created` when the file did not exist; `bytesWritten` the new size; `linesAdded`/`linesRemoved`
 * counted over the whole change; `hunks`, the structured change (see `hunkSchema`), listing at
 * most `MAX_LISTED_CHARS` characters of lines, and `omittedLines` the changed lines it leaves out
 * (absent when it lists them all); `sha256` of the new content.
 */
export const fileChangeValue = z.object({
  path: z.string(),
  created: z.boolean(),
  bytesWritten: z.number().int(),
  linesAdded: z.number().int(),
  linesRemoved: z.number().int(),
  hunks: z.array(hunkSchema),
  omittedLines: z.number().int().optional(),
  sha256: z.string(),
})

/** The canonical value of a file change. */
export type FileChangeValue = z.output<typeof fileChangeValue>

/** Resolve `input` for writing and snapshot what is there now (`undefined` if nothing). */
export async function prepareWrite(ctx: Context, exec: Readonly<ToolExecution>, input: string): Promise<{ file: string; before: FileSnapshot | undefined }> {
  const file = resolveForCall(ctx, exec, input, 'write')
  return { file, before: await readSnapshot(file, MAX_WRITE_BYTES, areaForCall(ctx, exec), exec.signal) }
}

/**
 * Refuse a write of `bytes` bytes over {@link MAX_WRITE_BYTES}, before anything is written (a
 * review made edit_file write a 510 MB file, the host at 3.1 GB, and then told the script the
 * call failed because its result was too large).
 * @throws WorkspaceToolError (`invalid-request`, detail `{ path, size }`).
 */
export function assertWritable(bytes: number, file: string): void {
  if (bytes <= MAX_WRITE_BYTES) return
  throw new WorkspaceToolError('invalid-request', `The new content of ${file} would be ${bytes} bytes, over the ${MAX_WRITE_BYTES}-byte limit of the file tools; nothing was written. Write less, or produce large files with bash.`, { path: file, size: bytes })
}

/**
 * Pass the `fs/write-gate`, write `content` to `file` (creating parent directories), emit
 * `fs/written`, and describe the change. `before` is the snapshot `prepareWrite` took. `content`
 * may be a function making the new text from `before`, called only once the gate passed (it
 * checks its own size with `assertWritable`): edit_file judges `old` against the file there, so
 * a file changed on disk since it was read is reported as that (reread it), never as an `old`
 * that is missing or ambiguous in text the model has not seen (S8). The write
 * goes through a safe open (S8, safe-fs.ts): no symlink is followed at any component, a new file
 * is created `O_EXCL`, and an existing file is written only if it is still the very file (device
 * and inode) the snapshot read and the gate judged; it is truncated and written through the fd.
 * @throws ToolDeniedError when a gate listener refuses, or the path changed during the call.
 */
export async function commitWrite(
  ctx: Context,
  exec: Readonly<ToolExecution>,
  tool: string,
  file: string,
  before: FileSnapshot | undefined,
  content: string | (() => string),
): Promise<FileChangeValue> {
  if (typeof content === 'string') assertWritable(Buffer.byteLength(content), file)
  passWriteGate(ctx, {
    agent: exec.agent,
    tool,
    path: file,
    exists: before !== undefined,
    ...(before && { current: { hash: before.hash, mtimeMs: before.mtimeMs, utf8: isUtf8(before.bytes) } }),
  })
  if (exec.signal.aborted) throw exec.signal.reason
  const text = typeof content === 'string' ? content : content()
  const area = areaForCall(ctx, exec)
  let opened
  try {
    opened = openForTool(file, area, before ? 'overwrite' : 'create')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST' || code === 'ENOENT') {
      throw new ToolDeniedError(`${file} ${code === 'EEXIST' ? 'appeared' : 'disappeared'} on disk since it was checked; read it with read_file, then retry ${tool}.`, { path: file })
    }
    throw error
  }
  const { fd, stat } = opened
  try {
    if (before && (stat.dev !== before.dev || stat.ino !== before.ino)) {
      throw new ToolDeniedError(`${file} was replaced on disk since it was read; read it again with read_file, then retry ${tool}.`, { path: file })
    }
    const bytes = Buffer.from(text)
    if (before) await ftruncate(fd, 0)
    await writeFd(fd, bytes)
    const after = fs.fstatSync(fd)
    const hash = sha256(bytes)
    ctx.emit('fs/written', { agent: exec.agent, tool, path: file, hash, mtimeMs: after.mtimeMs, size: bytes.length, created: before === undefined })
    return { path: file, created: before === undefined, bytesWritten: bytes.length, sha256: hash, ...describeChange(before?.text ?? '', text) }
  } finally {
    fs.closeSync(fd)
  }
}

/** A unified diff of `hunks` for `file` (pure): `--- file` / `+++ file` headers, then the hunks. */
export function unifiedDiff(file: string, hunks: readonly Hunk[], created = false): string {
  const text = formatPatch({
    oldFileName: created ? '/dev/null' : file,
    newFileName: file,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: hunks.map((hunk) => ({ ...hunk, lines: [...hunk.lines] })),
  })
  // formatPatch starts with an `Index:` line and a `===` rule (svn style); a unified diff does not.
  return text.replace(/^(Index: [^\n]*\n)?=+\n/, '')
}

/**
 * The diff of a pending card (S11.3): `before` → `after` as the call's arguments give them, for
 * `file`, its hunk headers `@@ proposed @@` (proposed-hunks.ts): a presenter does no I/O, so
 * where the change lands in the file is not known. `created`: from /dev/null (write_file). Pure.
 */
export function proposedDiff(file: string, before: string, after: string, created = false): string {
  return withoutLineNumbers(unifiedDiff(file, describeChange(before, after).hunks, created))
}

/** The completed diff card of a file change, or `undefined` for errors and malformed values (S11.5). */
export function presentChange(result: ToolResult): DiffCard | undefined {
  const value = fileChangeValue.safeParse(result.value)
  if (result.isError || !value.success) return undefined
  return { card: 'diff', phase: 'completed', path: value.data.path, diff: unifiedDiff(value.data.path, value.data.hunks, value.data.created), created: value.data.created }
}

/** Model-facing summary of a change: no diff (S11.4), just what happened. */
export function renderChange(value: FileChangeValue, extra = ''): string {
  const verb = value.created ? 'Created' : 'Updated'
  return `${verb} ${value.path} (${value.bytesWritten} bytes, +${value.linesAdded} -${value.linesRemoved} lines${extra}).`
}
