/**
 * The workspace contract every part reads (SPEC S8): the sandbox mode, the workspace and writable
 * roots, and what resolving a path against them answers. Types only; `ctx.sandboxPolicy` (policy/)
 * holds the current snapshot, the fs tools (builtin/) and the command sandbox read it.
 */

/**
 * How much a sandboxed command may touch (S8):
 * - `read-only`: the whole filesystem is read-only; only a private `/tmp` is writable.
 * - `workspace-write`: read-only, except the workspace roots and the extra writable roots.
 * - `danger-full-access`: no sandbox at all; the command runs with the host's full rights.
 */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access'

/**
 * A snapshot of the deployment's sandbox policy (S8): what `ctx.sandboxPolicy` holds and what the
 * `sandbox/options` event carries. Paths are absolute and realpath'd.
 */
export interface SandboxOptions {
  readonly mode: SandboxMode
  /** May sandboxed commands reach the network? Default `false`. */
  readonly network: boolean
  /** The workspace: relative paths resolve against the first one. Never empty. */
  readonly workspaceRoots: readonly string[]
  /** Extra roots that are writable in `workspace-write` (e.g. a shared tmp dir) and readable always. */
  readonly writableRoots: readonly string[]
  /**
   * State folders outside the workspace (a host's `stateDir`: journals, spills) that sandboxed
   * commands must not see: each is an empty private mount in the sandbox, like every root's `.ptc`.
   */
  readonly stateDirs?: readonly string[]
}

/** What a path is about to be used for; `write` is refused outright in `read-only` (S8). */
export type PathIntent = 'read' | 'write'

/**
 * The outcome of `ctx.sandboxPolicy.resolveWorkspacePath` (S8). On success `path` is the absolute,
 * symlink-free path the caller must use (not its own input). On failure `reason` is model-facing:
 * it names the rule and what is allowed instead.
 */
export type PathResolution = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string }

