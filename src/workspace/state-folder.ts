/**
 * The state folder layout (SPEC S8, S9.7): `.ptc/` in every workspace root holds the session
 * journals and `.ptc/spill/<agent>/`, written only by the host. Path resolution refuses writes
 * there, the fs tools let an agent read only its own spill folder, the bwrap sandbox hides it.
 */
import path from 'node:path'
import { isInside } from './is-inside.ts'

/**
 * The state folder in every workspace root (S8): the session journals and the spills, written only
 * by the host. The fs tools refuse writes there and let an agent read only its own spill folder;
 * the bwrap sandbox hides it from commands.
 */
export const STATE_FOLDER = '.ptc'

/** The name of an agent's own folder under `.ptc/spill/` (`default` without an agent). */
export function agentFolderName(agent: string | undefined): string {
  return (agent ?? 'default').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
}


/** The `.ptc` state folder of every workspace root: protected from writes by tools (S8). */
export function stateFolders(workspaceRoots: readonly string[]): string[] {
  return workspaceRoots.map((root) => path.join(root, STATE_FOLDER))
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

/** Where the host writes spills of `run_code` results for `workspace` (S9.7): `<workspace>/.ptc/spill`. */
export function spillFolder(workspace: string): string {
  return path.join(workspace, STATE_FOLDER, 'spill')
}

/** Where the session journals of `workspace` go: `<workspace>/.ptc/journal`. */
export function journalFolder(workspace: string): string {
  return path.join(workspace, STATE_FOLDER, 'journal')
}
