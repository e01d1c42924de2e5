/**
 * `ctx.sandboxPolicy`: the deployment's default sandbox mode and workspace roots (SPEC S8). It is
 * the single source both the fs tools and the bash tool read, so they never disagree on roots.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Context, Service } from 'cordis'
import { SandboxError } from './sandbox-errors.ts'
import type { PathIntent, PathResolution, SandboxMode, SandboxOptions } from './sandbox-types.ts'

declare module 'cordis' {
  interface Context {
    sandboxPolicy: SandboxPolicy
  }
  interface Events {
    /** The sandbox policy changed (S8): carries the new snapshot. Emitted by `setMode`. */
    'sandbox/options'(options: SandboxOptions): void
  }
}

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
   * symlink or FIFO swapped in after it is caught by the safe opens of `src/builtin/safe-fs.ts`.
   */
  resolveWorkspacePath(input: string, intent: PathIntent): PathResolution {
    return resolvePathAgainst(this.current, input, intent)
  }
}

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
    return { ok: false, reason: `path ${input} is a ${describeKind(stat)}, not a regular file or directory; only regular files and directories can be used` }
  }
  return { ok: true, path: real }
}

/** Is `candidate` equal to `root` or below it? Both absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  return relative === '' || (relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative))
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

function describeKind(stat: fs.Stats): string {
  if (stat.isCharacterDevice()) return 'character device'
  if (stat.isBlockDevice()) return 'block device'
  if (stat.isFIFO()) return 'FIFO (named pipe)'
  if (stat.isSocket()) return 'socket'
  return 'special file'
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
    throw new SandboxError('sandbox-policy-invalid', `${label} ${root} does not exist or cannot be resolved (${(error as NodeJS.ErrnoException).code})`, { root }, error)
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new SandboxError('sandbox-policy-invalid', `${label} ${root} is not a directory`, { root })
  }
  return real
}
