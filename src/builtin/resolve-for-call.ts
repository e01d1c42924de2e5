/**
 * The workspace boundary of one tool call at the moment of use (SPEC S8): path resolution through
 * `ctx.sandboxPolicy` plus any per-call escalation an approval granted, the safe-open area, and
 * the `fs/write-gate`. No policy decisions live here (S3.1): every refusal comes from the sandbox
 * policy or a gate listener.
 */
import type fs from 'node:fs'
import type { Context } from 'cordis'
import { ToolDeniedError } from '../errors/ptc-error.ts'
import type { ToolExecution } from '../tools/types.ts'
import { resolvePathAgainst } from '../workspace/resolve-path.ts'
import { openFileSync, type SafeArea, type SafeOpenMode, UnsafePathError } from '../workspace/safe-fs.ts'
import { stateFolderRefusal, stateFolders } from '../workspace/state-folder.ts'
import type { FsWriteGate } from '../workspace/workspace-events.ts'
import type { PathIntent, SandboxOptions } from '../workspace/workspace-options.ts'

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
 * Where this call's file operations may land (S8), for the safe opens of safe-fs.ts: the
 * workspace and writable roots (`/` in `danger-full-access`) of the policy widened by this call's
 * escalation, with every workspace root's `.ptc` state folder protected from writes.
 */
export function areaForCall(ctx: Context, execution: Readonly<ToolExecution>): SafeArea {
  const options = callOptions(ctx, execution)
  return {
    roots: options.mode === 'danger-full-access' ? ['/'] : [...options.workspaceRoots, ...options.writableRoots],
    protectedDirs: stateFolders(options.workspaceRoots),
  }
}

/**
 * The sandbox policy snapshot (S8) that applies to this call: the deployment's, widened by the
 * `permission/escalation` answer for it, if any. Roots are absolute and realpath'd.
 */
export function callOptions(ctx: Context, execution: Readonly<ToolExecution>): SandboxOptions {
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
 * Ask the `fs/write-gate` listeners (S8) whether `tool` may write `file` now.
 * @throws ToolDeniedError with the first listener's reason (a `denied` result).
 */
export function passWriteGate(ctx: Context, request: FsWriteGate): void {
  const reason = ctx.bail('fs/write-gate', request)
  if (typeof reason === 'string' && reason !== '') throw new ToolDeniedError(reason, { path: request.path })
}
