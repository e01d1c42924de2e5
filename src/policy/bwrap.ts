/**
 * The bubblewrap backend of the command sandbox (SPEC S8): a pure argv builder and a one-shot
 * probe. `ctx.sandbox` (sandbox.ts) decides when to use them.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { isInside } from '../workspace/is-inside.ts'
import { STATE_FOLDER } from '../workspace/state-folder.ts'
import type { SandboxOptions } from '../workspace/workspace-options.ts'
import type { SandboxReport } from './sandbox-types.ts'

/** Where the private tmpfs is mounted inside the sandbox. */
export const PRIVATE_TMP = '/tmp'

/**
 * Host directories replaced by an empty private tmpfs inside the sandbox (each only when it is a
 * real directory, not a symlink such as the usual /var/run -> /run): /run and /var/run hold
 * service sockets (docker.sock, dbus) that a command could otherwise connect to even with the
 * network off, since AF_UNIX sockets on a read-only mount still accept connections; /var/tmp is
 * shared scratch space where any user can leave sockets. Roots inside them are bound back.
 */
export const HIDDEN_DIRS = ['/run', '/var/run', '/var/tmp'] as const

/** Host files masked with an empty `/dev/null` inside the sandbox (when they exist): password hashes. */
export const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-'] as const

/**
 * Credential stores inside each home directory (`/root` and every `/home/*`) that are masked
 * inside the sandbox: directories by an empty tmpfs, files by `/dev/null`. Homes themselves stay
 * readable, so toolchains installed there (`~/.cargo`, `~/.nvm`, `~/.pyenv`) keep working; this
 * is a denylist of the usual places secrets live, not a guarantee that nothing else is readable.
 */
export const SECRET_HOME_ENTRIES = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
] as const

/** The home directories whose `SECRET_HOME_ENTRIES` are masked. */
function homeDirs(readdir: (dir: string) => string[] | undefined): string[] {
  return ['/root', ...(readdir('/home') ?? []).map((name) => path.join('/home', name))]
}

function readdirOrUndefined(dir: string): string[] | undefined {
  try {
    return fs.readdirSync(dir)
  } catch {
    return undefined
  }
}

/** Namespaces `--unshare-all` asks for; `user` and `cgroup` are "try" in bwrap, so the probe checks them. */
export const NAMESPACES = ['ipc', 'pid', 'net', 'uts', 'user', 'cgroup'] as const

/** One Linux namespace kind bwrap can unshare. */
export type NamespaceKind = (typeof NAMESPACES)[number]

/**
 * Result of `probeBwrap`: `available` with the namespaces a sandboxed process really got (compared
 * with the host's), or not, with a human-readable `cause`.
 */
export type BwrapProbe =
  | { readonly available: true; readonly namespaces: readonly NamespaceKind[] }
  /** `timedOut`: bwrap did not answer within the probe's budget (a loaded machine), so it may yet work. */
  | { readonly available: false; readonly cause: string; readonly timedOut?: true }

/** Input of `buildBwrapArgs`. `options` roots must be absolute and realpath'd; `cwd` too. */
export interface BwrapArgsInput {
  readonly bwrapPath: string
  /** Effective policy of this call; mode must be `read-only` or `workspace-write`. */
  readonly options: SandboxOptions
  readonly cwd: string
  readonly argv: readonly string[]
  /** Namespaces the probe saw unshared (with network shared, `net` is dropped from the report). */
  readonly namespaces: readonly NamespaceKind[]
  /** How host paths are inspected (existence, kind); default: `lstat` of the real file system. */
  readonly lstat?: (file: string) => fs.Stats | undefined
  /** Resolves a host path's symlinks (`undefined` when missing); default: the real file system. */
  readonly realpath?: (file: string) => string | undefined
  /** Lists a host directory (`undefined` when missing); default: the real file system. */
  readonly readdir?: (dir: string) => string[] | undefined
  /**
   * Directories the command needs to run programs from (the `PATH` entries of its environment,
   * the running Node's `bin`): those that the private /tmp or `HIDDEN_DIRS` would hide are bound
   * back read-only, so a toolchain installed under /tmp (a CI clone's bootstrapped Node) works.
   */
  readonly toolDirs?: readonly string[]
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync(file)
  } catch {
    return undefined
  }
}

/** `lstat` that answers `undefined` for a missing path. */
function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file)
  } catch {
    return undefined
  }
}

/**
 * Build the bwrap argv for one command and the report of what it enforces (S8). Layout, in mount
 * order (later mounts shadow earlier ones):
 * - `--ro-bind / /`: the host filesystem, read-only (bwrap remounts submounts read-only too);
 * - `--dev /dev`, `--proc /proc`: a minimal device tree (null, zero, urandom, tty...) and a procfs
 *   of the new pid namespace, so host devices and host processes are not reachable;
 * - `--tmpfs /tmp`: a private, empty tmp discarded on exit, so commands cannot see or plant files
 *   in the host's /tmp;
 * - `--tmpfs D` for each of `HIDDEN_DIRS` that is a real directory (/run, /var/run, /var/tmp):
 *   host service sockets are unreachable even though AF_UNIX is not covered by the network
 *   namespace; with network on, /etc/resolv.conf's target is bound back when it lives there;
 * - `--ro-bind D D` for each of `toolDirs` those mounts would hide (PATH entries under /tmp);
 * - then, shortest first so nested roots win: `--bind R R` for every workspace and writable root
 *   in `workspace-write`, `--ro-bind R R` in `read-only` (a root under /tmp would otherwise be
 *   hidden by the tmpfs);
 * - `--ro-bind /dev/null F` for each of `MASKED_FILES` that exists (/etc/shadow, /etc/gshadow...),
 *   and the `SECRET_HOME_ENTRIES` of /root and /home/* masked (tmpfs or /dev/null);
 * - `--tmpfs R/.ptc` for every workspace root whose `.ptc` state folder is a real directory: the
 *   session journals (the audit log) and the spills of every session are hidden from commands,
 *   which can neither read, rewrite nor plant symlinks there;
 * - `--unshare-all` (+ `--share-net` only when network is allowed): own ipc/pid/uts/net and, when
 *   the kernel allows, user and cgroup namespaces;
 * - `--die-with-parent`: the command is SIGKILLed if bwrap or our process dies;
 * - `--new-session`: setsid, so the command cannot push keystrokes into our terminal (TIOCSTI);
 * - `--chdir cwd`, then `--` and the exact argv.
 */
export function buildBwrapArgs(input: BwrapArgsInput): { argv: string[]; report: SandboxReport } {
  const { options } = input
  if (options.mode === 'danger-full-access') throw new Error('buildBwrapArgs: danger-full-access is not sandboxed')
  const writable = options.mode === 'workspace-write'
  const roots = unique([...options.workspaceRoots, ...options.writableRoots]).sort((a, b) => a.length - b.length)
  const argv = [input.bwrapPath, '--die-with-parent', '--new-session', '--unshare-all']
  if (options.network) argv.push('--share-net')
  argv.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', PRIVATE_TMP)
  const lstat = input.lstat ?? lstatOrUndefined
  const hidden = HIDDEN_DIRS.filter((dir) => lstat(dir)?.isDirectory())
  for (const dir of hidden) argv.push('--tmpfs', dir)
  if (options.network) {
    // systemd-resolved keeps the resolver config under /run: DNS must keep working.
    const resolv = (input.realpath ?? realpathOrUndefined)('/etc/resolv.conf')
    if (resolv && hidden.some((dir) => isInside(dir, resolv))) argv.push('--ro-bind', resolv, resolv)
  }
  const realpath = input.realpath ?? realpathOrUndefined
  const shadowed = [PRIVATE_TMP, ...hidden]
  const toolDirs = unique(
    (input.toolDirs ?? [])
      .filter((dir) => path.isAbsolute(dir))
      .map((dir) => realpath(dir))
      .filter((dir): dir is string => dir !== undefined && lstat(dir)?.isDirectory() === true)
      .filter((dir) => shadowed.some((hiddenDir) => isInside(hiddenDir, dir)) && !roots.some((root) => isInside(root, dir))),
  )
  for (const dir of toolDirs) argv.push('--ro-bind', dir, dir)
  for (const root of roots) argv.push(writable ? '--bind' : '--ro-bind', root, root)
  // After the roots, so a root of / or /etc or a home cannot unmask them.
  for (const file of MASKED_FILES) if (lstat(file)?.isFile()) argv.push('--ro-bind', '/dev/null', file)
  for (const home of homeDirs(input.readdir ?? readdirOrUndefined)) {
    for (const entry of SECRET_HOME_ENTRIES) {
      const secret = path.join(home, entry)
      const stats = lstat(secret)
      // A symlinked entry is left alone: bwrap would mount over its target, wherever that is.
      if (stats?.isDirectory()) argv.push('--tmpfs', secret)
      else if (stats?.isFile()) argv.push('--ro-bind', '/dev/null', secret)
    }
  }
  for (const root of unique(options.workspaceRoots)) {
    const state = path.join(root, STATE_FOLDER)
    // A symlink would make bwrap mount wherever it points; the host refuses to start with one.
    if (lstat(state)?.isDirectory()) argv.push('--tmpfs', state)
  }
  // A host's stateDir outside the workspace (journals and spills of every session) is hidden the same way.
  for (const state of unique(options.stateDirs ?? [])) if (lstat(state)?.isDirectory()) argv.push('--tmpfs', state)
  argv.push('--chdir', input.cwd, '--', ...input.argv)
  const writableRoots = writable ? roots : []
  return {
    argv,
    report: Object.freeze({
      backend: 'bwrap',
      mode: options.mode,
      readOnlyRoot: !writableRoots.includes('/'),
      writableRoots: Object.freeze(writableRoots),
      // A root at or above /tmp is bound over the tmpfs, so the host's tmp shows through.
      privateTmp: !roots.some((root) => isInside(root, PRIVATE_TMP)),
      network: options.network,
      namespaces: Object.freeze(input.namespaces.filter((kind) => !(kind === 'net' && options.network))),
    }),
  }
}

/**
 * Is `cwd` visible inside the sandbox built by `buildBwrapArgs`? Everything is, except, outside
 * the bound roots, the host's /tmp and `HIDDEN_DIRS` (shadowed by private tmpfs mounts) and the
 * host's /dev and /proc.
 */
export function cwdVisibleInSandbox(cwd: string, options: SandboxOptions): boolean {
  const roots = [...options.workspaceRoots, ...options.writableRoots]
  if (roots.some((root) => isInside(root, cwd))) return true
  return ![PRIVATE_TMP, ...HIDDEN_DIRS, '/dev', '/proc'].some((hidden) => isInside(hidden, cwd))
}

/**
 * Probe bwrap once with the real mount layout (S8): run `readlink /proc/self/ns/*` inside
 * `bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp` and compare with this
 * process's namespaces. Resolves `available: false` (never rejects) when the binary is missing,
 * fails, prints something unexpected, or takes longer than `timeoutMs` (ms).
 */
export function probeBwrap(bwrapPath: string, timeoutMs: number): Promise<BwrapProbe> {
  const links = NAMESPACES.map((kind) => `/proc/self/ns/${kind}`)
  const args = ['--die-with-parent', '--unshare-all', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', PRIVATE_TMP, '--', 'readlink', ...links]
  return new Promise((resolve) => {
    execFile(bwrapPath, args, { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code
        const cause =
          code === 'ENOENT' ? `${bwrapPath} not found` : error.killed ? `timed out after ${timeoutMs} ms` : (stderr.trim() || error.message).split('\n')[0]!
        resolve({ available: false, cause, ...(error.killed && code !== 'ENOENT' && { timedOut: true as const }) })
        return
      }
      const inside = stdout.trim().split('\n')
      if (inside.length !== NAMESPACES.length) {
        resolve({ available: false, cause: `unexpected probe output: ${JSON.stringify(stdout.slice(0, 200))}` })
        return
      }
      const namespaces = NAMESPACES.filter((kind, index) => {
        try {
          return fs.readlinkSync(links[index]!) !== inside[index]
        } catch {
          return true // The host hides its own link; the sandbox printed one, so it is a fresh namespace.
        }
      })
      resolve({ available: true, namespaces })
    })
  })
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths.map((entry) => path.normalize(entry)))]
}
