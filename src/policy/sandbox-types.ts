/**
 * Contracts of the command sandbox (SPEC S8), in one types-only module that the sandbox services,
 * the bash tool, the fs tools and the permission presets plugin all import.
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
}

/** What a path is about to be used for; `write` is refused outright in `read-only` (S8). */
export type PathIntent = 'read' | 'write'

/**
 * The outcome of `ctx.sandboxPolicy.resolveWorkspacePath` (S8). On success `path` is the absolute,
 * symlink-free path the caller must use (not its own input). On failure `reason` is model-facing:
 * it names the rule and what is allowed instead.
 */
export type PathResolution = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string }

/** One command about to be spawned, as a consumer hands it to `ctx.sandbox.wrap` (S8). */
export interface WrapRequest {
  /** The exact argv the consumer would spawn unsandboxed; `argv[0]` is the program. */
  readonly argv: readonly string[]
  /** Absolute working directory of the command. */
  readonly cwd: string
  /** Environment for the command; when omitted a minimal one is derived from the host's (see `Sandbox.wrap`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Per-call overrides of the deployment policy (e.g. network after an approval). */
  readonly policy?: Partial<SandboxOptions>
}

/**
 * What the sandbox actually enforced for one command (S8), reported honestly: `backend: 'none'`
 * means the command runs unconfined.
 */
export interface SandboxReport {
  readonly backend: 'bwrap' | 'none'
  /** The policy mode the report was computed for. */
  readonly mode: SandboxMode
  /** Is `/` mounted read-only inside the sandbox? */
  readonly readOnlyRoot: boolean
  /** Host paths bind-mounted writable (absolute, realpath'd). */
  readonly writableRoots: readonly string[]
  /** Does the command see a private, empty, writable `/tmp` (discarded on exit)? */
  readonly privateTmp: boolean
  /** May the command reach the network (host network namespace)? */
  readonly network: boolean
  /** Linux namespaces the command runs in, e.g. `['ipc', 'net', 'pid', 'uts', 'user', 'cgroup']`. */
  readonly namespaces: readonly string[]
}

/** The result of `ctx.sandbox.wrap`: spawn exactly `argv` with `env` and `cwd` (S8). */
export interface SandboxedCommand {
  readonly argv: readonly string[]
  /** The environment to spawn with (already cleaned). */
  readonly env: Readonly<Record<string, string>>
  /** The working directory to spawn in: the realpath of the requested one. */
  readonly cwd: string
  readonly enforced: SandboxReport
}
