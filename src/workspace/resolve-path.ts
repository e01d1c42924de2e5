/**
 * Resolving a path a tool is about to use against the workspace (SPEC S8), as a pure function of a
 * policy snapshot: the early, explainable refusal. `ctx.sandboxPolicy.resolveWorkspacePath` and the
 * fs tools' per-call resolution both use it; the safe opens (safe-fs.ts) catch what is swapped in
 * after it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { isInside } from './is-inside.ts'
import { describeStat } from './safe-fs.ts'
import { STATE_FOLDER } from './state-folder.ts'
import type { PathIntent, PathResolution, SandboxOptions } from './workspace-options.ts'

/**
 * Pure form of `SandboxPolicy.resolveWorkspacePath` against a given snapshot (S8); see there.
 * `options` roots must already be realpath'd.
 */
export function resolvePathAgainst(options: SandboxOptions, input: string, intent: PathIntent): PathResolution {
  if (typeof input !== 'string' || input.trim() === '') {
    return { ok: false, reason: 'path is empty; give a path relative to the workspace root ' + options.workspaceRoots[0] }
  }
  if (input.includes('\0')) return { ok: false, reason: 'path contains a NUL byte' }
  if (intent === 'write' && options.mode === 'read-only') {
    return {
      ok: false,
      reason: `cannot write ${input}: the sandbox mode is read-only, so no writes are allowed; ask the user to switch to the workspace-write preset`,
    }
  }
  const lexical = path.resolve(options.workspaceRoots[0]!, input)
  let real: string
  try {
    real = realpathDeepest(lexical)
  } catch (error) {
    return { ok: false, reason: `cannot resolve ${input}: ${(error as Error).message}` }
  }
  if (options.mode !== 'danger-full-access') {
    const allowed = [...options.workspaceRoots, ...options.writableRoots]
    if (!allowed.some((root) => isInside(root, real))) {
      const how = real !== lexical ? ` (it resolves through a symbolic link to ${real})` : hasDotDot(input) ? ` (the '..' segments lead out of the workspace)` : ''
      return {
        ok: false,
        reason: `path ${input} is outside the workspace roots [${allowed.join(', ')}]${how}; use a path under ${options.workspaceRoots[0]}`,
      }
    }
  }
  if (intent === 'write' && options.workspaceRoots.some((root) => isInside(path.join(root, STATE_FOLDER), real))) {
    return {
      ok: false,
      reason: `cannot write ${input}: the ${STATE_FOLDER} folder holds the session journal and spills and is written only by ptc-runner (reading there is fine); write elsewhere in the workspace`,
    }
  }
  let stat: fs.Stats | undefined
  try {
    stat = fs.statSync(real)
  } catch {
    stat = undefined // Not there yet: fine for a write, and a read will report ENOENT itself.
  }
  if (stat && !stat.isFile() && !stat.isDirectory()) {
    return { ok: false, reason: `path ${input} is a ${describeStat(stat)}, not a regular file or directory; only regular files and directories can be used` }
  }
  return { ok: true, path: real }
}

/**
 * Realpath the deepest existing ancestor of an absolute, normalized path and append the rest.
 * Throws (with a readable message) on a dangling symlink, since writing through it would create
 * its target wherever it points, and on symlink loops or permission errors.
 */
function realpathDeepest(absolute: string): string {
  const tail: string[] = []
  let current = absolute
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...tail.reverse())
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(`${current}: ${code ?? (error as Error).message}`)
      let linkExists = false
      try {
        linkExists = fs.lstatSync(current).isSymbolicLink()
      } catch {}
      if (linkExists) throw new Error(`${current} is a symbolic link to a missing target (${fs.readlinkSync(current)})`)
      const parent = path.dirname(current)
      if (parent === current) throw error
      tail.push(path.basename(current))
      current = parent
    }
  }
}

function hasDotDot(input: string): boolean {
  return input.split(/[\\/]/).includes('..')
}
