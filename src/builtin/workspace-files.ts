/**
 * Shared plumbing of the workspace tools (SPEC S8): path resolution at the moment of use through
 * `ctx.sandboxPolicy` (plus any per-call escalation an approval granted), file snapshots with a
 * content hash, the `fs/write-gate` call, and structured diff hunks. No policy decisions live
 * here (S3.1): every refusal comes from the sandbox policy or a gate listener.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Context } from 'cordis'
import { structuredPatch } from 'diff'
import { z } from 'zod'
import { PtcError, ToolDeniedError } from '../errors/ptc-error.ts'
import { agentFolderName, isInside, resolvePathAgainst, STATE_FOLDER } from '../policy/sandbox-policy.ts'
import type { PathIntent, SandboxOptions } from '../policy/sandbox-types.ts'
import type { ToolExecution } from '../tools/types.ts'
import { openFileSync, readFd, type SafeArea, type SafeOpenMode, UnsafePathError } from './safe-fs.ts'
import type { FsWriteGate } from './workspace-events.ts'

/** Stable codes of workspace tool refusals. */
export type WorkspaceToolErrorCode = 'invalid-request'

/**
 * A workspace tool refused a request (S8): a path the sandbox policy denies, a write the
 * `fs/write-gate` denied, or a request that cannot be carried out (no match for an edit...). The
 * message is model-facing and says what to do instead; the pipeline makes it an `isError` result.
 */
export class WorkspaceToolError extends PtcError {
  declare readonly code: WorkspaceToolErrorCode

  constructor(code: WorkspaceToolErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { details })
  }
}

/**
 * Resolve `input` for one call at the moment of use (S8): `ctx.sandboxPolicy.resolveWorkspacePath`
 * semantics (symlinks resolved, `..` and absolute escapes, device files and read-only writes
 * refused), against the deployment policy widened by the `permission/escalation` answer for this
 * call, if any. Returns the absolute, symlink-free path.
 * @throws ToolDeniedError with the policy's reason (a `denied` result).
 */
export function resolveForCall(ctx: Context, execution: Readonly<ToolExecution>, input: string, intent: PathIntent): string {
  const options = callOptions(ctx, execution)
  const resolution = resolvePathAgainst(options, input, intent)
  if (!resolution.ok) throw new ToolDeniedError(`${resolution.reason}.`, { path: input, intent })
  const refusal = stateFolderRefusal(options.workspaceRoots, resolution.path, execution.agent)
  if (refusal) throw new ToolDeniedError(`cannot read ${input}: ${refusal}.`, { path: input, intent })
  return resolution.path
}

/**
 * The `.ptc` state folder holds every session's journal and spills (S8): an agent may read only
 * its own spill folder, `.ptc/spill/<agent>/`, whose paths `run_code` hands to the model. Returns
 * the reason `real` (absolute, symlink-free) is refused to `agent`, or `undefined`.
 */
export function stateFolderRefusal(workspaceRoots: readonly string[], real: string, agent: string | undefined): string | undefined {
  for (const root of workspaceRoots) {
    const state = path.join(root, STATE_FOLDER)
    if (!isInside(state, real)) continue
    const own = path.join(state, 'spill', agentFolderName(agent))
    if (isInside(own, real)) return undefined
    return `the ${STATE_FOLDER} folder holds the journals and spills of every session; only your own spill files under ${own} can be read`
  }
  return undefined
}

/**
 * Where this call's file operations may land (S8), for the safe opens of safe-fs.ts: the
 * workspace and writable roots (`/` in `danger-full-access`) of the policy widened by this call's
 * escalation, with every workspace root's `.ptc` state folder protected from writes.
 */
export function areaForCall(ctx: Context, execution: Readonly<ToolExecution>): SafeArea {
  const options = callOptions(ctx, execution)
  return {
    roots: options.mode === 'danger-full-access' ? ['/'] : [...options.workspaceRoots, ...options.writableRoots],
    protectedDirs: options.workspaceRoots.map((root) => path.join(root, '.ptc')),
  }
}

function callOptions(ctx: Context, execution: Readonly<ToolExecution>): SandboxOptions {
  const escalation = ctx.bail('permission/escalation', execution)
  return escalation ? { ...ctx.sandboxPolicy.options(), ...escalation } : ctx.sandboxPolicy.options()
}

/**
 * `openFileSync` for a tool (S8): a refusal of the safe open (the path changed during the call:
 * a symlink or special file swapped in, a directory moved out of the area) becomes a denial.
 * `ENOENT` is passed through for the caller to report.
 * @throws ToolDeniedError with the reason.
 */
export function openForTool(file: string, area: SafeArea, mode: SafeOpenMode): { fd: number; stat: fs.Stats; real: string } {
  try {
    return openFileSync(file, area, mode)
  } catch (error) {
    if (UnsafePathError.isInstance(error)) {
      throw new ToolDeniedError(`${(error as Error).message}; refused. Paths must stay regular files and directories inside the workspace while a tool uses them.`, { path: file })
    }
    throw error
  }
}

/**
 * A file as read from disk: bytes, decoded text, lowercase hex SHA-256, mtime (ms), size (bytes),
 * and its identity (`dev`, `ino`), which an overwrite checks before writing (S8).
 */
export interface FileSnapshot {
  readonly bytes: Buffer
  readonly text: string
  readonly hash: string
  readonly mtimeMs: number
  readonly size: number
  readonly dev: number
  readonly ino: number
}

/** Lowercase hex SHA-256 of `data`. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/**
 * Read a regular file completely through a safe open inside `area` (S8: no symlink followed, a
 * FIFO never blocks); `undefined` when it does not exist.
 * @throws WorkspaceToolError (`invalid-request`) for a directory or a file over `maxBytes`.
 * @throws ToolDeniedError when the path changed into something unsafe during the call.
 */
export async function readSnapshot(file: string, maxBytes: number, area: SafeArea, signal?: AbortSignal): Promise<FileSnapshot | undefined> {
  let opened
  try {
    opened = openForTool(file, area, 'read')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const { fd, stat } = opened
  try {
    if (stat.isDirectory()) throw new WorkspaceToolError('invalid-request', `${file} is a directory; use list_dir or glob to see what it contains.`, { path: file })
    if (stat.size > maxBytes) {
      throw new WorkspaceToolError('invalid-request', `${file} is ${stat.size} bytes, over the ${maxBytes}-byte limit of this tool.`, { path: file, size: stat.size })
    }
    const bytes = await readFd(fd, maxBytes, signal)
    if (bytes.length > maxBytes) {
      throw new WorkspaceToolError('invalid-request', `${file} grew past the ${maxBytes}-byte limit of this tool while it was read.`, { path: file })
    }
    return { bytes, text: bytes.toString('utf8'), hash: sha256(bytes), mtimeMs: stat.mtimeMs, size: bytes.length, dev: stat.dev, ino: stat.ino }
  } finally {
    fs.closeSync(fd)
  }
}

/** Heuristic: a NUL byte in the first 8 KiB means binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0)
}

/**
 * Ask the `fs/write-gate` listeners (S8) whether `tool` may write `file` now.
 * @throws ToolDeniedError with the first listener's reason (a `denied` result).
 */
export function passWriteGate(ctx: Context, request: FsWriteGate): void {
  const reason = ctx.bail('fs/write-gate', request)
  if (typeof reason === 'string' && reason !== '') throw new ToolDeniedError(reason, { path: request.path })
}

/** `file` relative to `root` when inside it (POSIX separators), else `file` unchanged. */
export function workspaceRelative(root: string, file: string): string {
  const relative = path.relative(root, file)
  if (relative === '') return '.'
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/')
}

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
