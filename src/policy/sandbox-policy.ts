/**
 * `ctx.sandboxPolicy`: the deployment's default sandbox mode and workspace roots (SPEC S8). It is
 * the single source both the fs tools and the bash tool read, so they never disagree on roots.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Context, Service } from 'cordis'
import { SandboxError } from './sandbox-errors.ts'
import { resolvePathAgainst } from '../workspace/resolve-path.ts'
import type { PathIntent, PathResolution, SandboxMode, SandboxOptions } from '../workspace/workspace-options.ts'

declare module 'cordis' {
  interface Context {
    sandboxPolicy: SandboxPolicy
  }
  interface Events {
    /** The sandbox policy changed (S8): carries the new snapshot. Emitted by `setMode`. */
    'sandbox/options'(options: SandboxOptions): void
  }
}

/** Every sandbox mode, in increasing order of access (S8). */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const satisfies readonly SandboxMode[]

/** Configuration of the `SandboxPolicy` plugin (S8). */
export interface SandboxPolicyConfig {
  /** Absolute directories; the first is where relative paths resolve. At least one; each must exist. */
  workspaceRoots: string[]
  /** Default `'workspace-write'`. */
  mode?: SandboxMode
  /** Default `false`. */
  network?: boolean
  /** Extra absolute directories writable in `workspace-write` (e.g. a tmp dir); each must exist. */
  writableRoots?: string[]
  /** State folders outside the workspace that sandboxed commands must not see (absolute; each must exist). */
  stateDirs?: string[]
}

/**
 * The `ctx.sandboxPolicy` service (S8). Roots are realpath'd once at construction; a relative or
 * missing root throws a `SandboxError` (`sandbox-policy-invalid`). Mode and network change only
 * through `setMode`, which emits `sandbox/options`.
 */
export class SandboxPolicy extends Service {
  private current: SandboxOptions

  constructor(ctx: Context, config: SandboxPolicyConfig) {
    super(ctx, 'sandboxPolicy')
    this.current = normalizeOptions({
      mode: config.mode ?? 'workspace-write',
      network: config.network ?? false,
      workspaceRoots: config.workspaceRoots,
      writableRoots: config.writableRoots ?? [],
      ...(config.stateDirs?.length && { stateDirs: config.stateDirs }),
    })
  }

  /** The current mode (S8). */
  get mode(): SandboxMode {
    return this.current.mode
  }

  /** May sandboxed commands reach the network? */
  get network(): boolean {
    return this.current.network
  }

  /** Realpath'd workspace roots; relative paths resolve against the first. */
  get workspaceRoots(): readonly string[] {
    return this.current.workspaceRoots
  }

  /** Realpath'd extra writable roots. */
  get writableRoots(): readonly string[] {
    return this.current.writableRoots
  }

  /** A frozen snapshot of the whole policy, as `sandbox/options` carries it. */
  options(): SandboxOptions {
    return this.current
  }

  /**
   * Switch the mode (and optionally network) and emit `sandbox/options` with the new snapshot,
   * which it also returns (S8: the permission presets plugin calls this on a preset switch).
   * Emits even when nothing changed, so a preset switch is always observable. Throws a
   * `SandboxError` (`sandbox-policy-invalid`) for an unknown mode.
   */
  setMode(mode: SandboxMode, network?: boolean): SandboxOptions {
    assertMode(mode)
    this.current = Object.freeze({ ...this.current, mode, network: network ?? this.current.network })
    this.ctx.emit('sandbox/options', this.current)
    return this.current
  }

  /**
   * Resolve a path a tool is about to use (fs tools, bash cwd; S8) against this policy, at the
   * moment of use. Relative inputs resolve against the first workspace root; then the deepest
   * existing ancestor is realpath'd, so a symlink inside the workspace that points outside is
   * judged by where it really leads. Refused, with a model-facing reason: empty input, paths
   * outside every workspace/writable root (`..` escapes included), dangling or looping symlinks,
   * existing paths that are neither a regular file nor a directory (devices, FIFOs, sockets),
   * writes under a workspace root's `.ptc` state folder (any mode), and every write in `read-only` mode. In `danger-full-access` any location is allowed (the file-type
   * check still applies: no tool can usefully read `/dev/zero`). On success, `path` is the
   * symlink-free absolute path to use. Never throws. This is the early, explainable refusal; a
   * symlink or FIFO swapped in after it is caught by the safe opens of `src/workspace/safe-fs.ts`.
   */
  resolveWorkspacePath(input: string, intent: PathIntent): PathResolution {
    return resolvePathAgainst(this.current, input, intent)
  }
}

/** Validate and realpath a policy snapshot; throws `SandboxError` (`sandbox-policy-invalid`). */
export function normalizeOptions(options: SandboxOptions): SandboxOptions {
  assertMode(options.mode)
  if (!Array.isArray(options.workspaceRoots) || options.workspaceRoots.length === 0) {
    throw new SandboxError('sandbox-policy-invalid', 'sandbox policy needs at least one workspace root', {})
  }
  return Object.freeze({
    mode: options.mode,
    network: options.network === true,
    workspaceRoots: Object.freeze(options.workspaceRoots.map((root) => realRoot(root, 'workspace root'))),
    writableRoots: Object.freeze((options.writableRoots ?? []).map((root) => realRoot(root, 'writable root'))),
    ...(options.stateDirs?.length && { stateDirs: Object.freeze(options.stateDirs.map((dir) => realRoot(dir, 'state folder'))) }),
  })
}

function assertMode(mode: SandboxMode): void {
  if (!(SANDBOX_MODES as readonly string[]).includes(mode)) {
    throw new SandboxError('sandbox-policy-invalid', `unknown sandbox mode ${JSON.stringify(mode)}; expected one of ${SANDBOX_MODES.join(', ')}`, { mode })
  }
}

function realRoot(root: string, label: string): string {
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new SandboxError('sandbox-policy-invalid', `${label} ${JSON.stringify(root)} must be an absolute path`, { root })
  }
  let real: string
  try {
    real = fs.realpathSync(root)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const advice = code === 'ENOENT' ? 'create the folder first, or name an existing one' : 'name a folder this process can reach'
    throw new SandboxError('sandbox-policy-invalid', `${label} ${root} does not exist or cannot be resolved (${code}): ${advice}`, { root }, error)
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new SandboxError('sandbox-policy-invalid', `${label} ${root} is not a directory: name a folder`, { root })
  }
  return real
}
