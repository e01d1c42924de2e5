/**
 * Pure path relations against a root (SPEC S8), shared by path resolution, the safe opens, the
 * state folder rules and the sandbox's mounts. No file system access.
 */
import path from 'node:path'

/** Is `candidate` equal to `root` or below it? Both absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  return relative === '' || (relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative))
}

/** `file` relative to `root` when inside it (POSIX separators), else `file` unchanged. */
export function workspaceRelative(root: string, file: string): string {
  const relative = path.relative(root, file)
  if (relative === '') return '.'
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/')
}
