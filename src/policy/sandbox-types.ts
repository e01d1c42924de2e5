/**
 * Contracts of the command sandbox (SPEC S8), in one types-only module that the sandbox services,
 * the bash tool, the fs tools and the permission presets plugin all import. The mode and roots
 * themselves are the workspace contract (`src/workspace/workspace-options.ts`).
 */
import type { SandboxMode, SandboxOptions } from '../workspace/workspace-options.ts'

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
