/**
 * `ctx.sandbox`: wraps the exact argv a consumer is about to spawn per the call's sandbox policy
 * and reports what it enforced (SPEC S8). Backend: bubblewrap (bwrap.ts). A sandboxed mode never
 * degrades to running unconfined: without a working bwrap, `wrap` throws.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Context, Service } from 'cordis'
import { buildBwrapArgs, cwdVisibleInSandbox, HIDDEN_DIRS, PRIVATE_TMP, probeBwrap } from './bwrap.ts'
import type { BwrapProbe } from './bwrap.ts'
import { SandboxError, SandboxUnavailableError } from './sandbox-errors.ts'
import { normalizeOptions } from './sandbox-policy.ts'
import type { SandboxOptions } from '../workspace/workspace-options.ts'
import type { SandboxedCommand, WrapRequest } from './sandbox-types.ts'

declare module 'cordis' {
  interface Context {
    sandbox: Sandbox
  }
}

/** Configuration of the `Sandbox` plugin (S8). */
export interface SandboxConfig {
  /** The bwrap executable: a name looked up on PATH or an absolute path. Default `'bwrap'`. */
  bwrapPath?: string
  /** Budget of the one-time availability probe, in ms. Default 5000. */
  probeTimeoutMs?: number
}

/**
 * Host environment variables a sandboxed command inherits when the consumer passes no `env`:
 * enough for shells and locales, nothing that usually carries credentials.
 */
export const DEFAULT_ENV_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ'] as const

/**
 * The `ctx.sandbox` service (S8). Reads the default policy from `ctx.sandboxPolicy` at each call,
 * so a preset switch applies to the next command.
 */
export class Sandbox extends Service {
  static inject = ['sandboxPolicy']

  readonly bwrapPath: string
  private readonly probeTimeoutMs: number
  private probing: Promise<BwrapProbe> | undefined

  constructor(ctx: Context, config: SandboxConfig = {}) {
    super(ctx, 'sandbox')
    this.bwrapPath = config.bwrapPath ?? 'bwrap'
    this.probeTimeoutMs = config.probeTimeoutMs ?? 5000
  }

  /**
   * Can bwrap build our sandbox here? Probes once (see `probeBwrap`: the real mount layout, within
   * `probeTimeoutMs`) and caches the answer for the life of the service. Never rejects.
   */
  async available(): Promise<boolean> {
    return (await this.probe()).available
  }

  /**
   * The cached probe with details: the namespaces a sandboxed command gets, or why bwrap cannot
   * run (S8). A probe that timed out is not kept (the next call probes again). Never rejects.
   */
  probe(): Promise<BwrapProbe> {
    if (this.probing === undefined) {
      const probing = probeBwrap(this.bwrapPath, this.probeTimeoutMs)
      this.probing = probing
      // A probe that timed out (issue 14: a loaded machine) is not the answer for the service's
      // life: that call is refused, and the next one probes again.
      void probing.then((probe) => {
        if (!probe.available && probe.timedOut && this.probing === probing) this.probing = undefined
      })
    }
    return this.probing
  }

  /**
   * Wrap one command (S8). `request.argv` is the exact argv the consumer would spawn;
   * `request.policy` overrides fields of `ctx.sandboxPolicy.options()` for this call only (roots
   * given there are realpath'd). Returns the argv, env and cwd to spawn with, and `enforced`, the
   * report of what applies: `backend: 'bwrap'` for `read-only` / `workspace-write`, `backend:
   * 'none'` (argv unchanged, unconfined) for `danger-full-access`.
   *
   * Env: `request.env` without its `undefined` entries, or, when omitted, the host's
   * `DEFAULT_ENV_KEYS` and `LC_*` only (no credentials leak into model-written commands). Sandboxed
   * commands get `TMPDIR=/tmp`, their private tmp.
   *
   * Throws `SandboxUnavailableError` when a sandboxed mode is asked for and bwrap is missing or
   * cannot create the namespaces (S8.2: refuse, never run unconfined); `SandboxError`
   * (`sandbox-request-invalid`) for an empty argv or a cwd that is not an absolute existing
   * directory visible inside the sandbox; `SandboxError` (`sandbox-policy-invalid`) for bad overrides.
   */
  async wrap(request: WrapRequest): Promise<SandboxedCommand> {
    const options = this.effectiveOptions(request.policy)
    if (!Array.isArray(request.argv) || request.argv.length === 0 || request.argv.some((arg) => typeof arg !== 'string')) {
      throw new SandboxError('sandbox-request-invalid', 'sandbox wrap needs a non-empty argv of strings', {})
    }
    const cwd = realCwd(request.cwd)
    const env = cleanEnv(request.env)
    if (options.mode === 'danger-full-access') {
      return Object.freeze({
        argv: Object.freeze([...request.argv]),
        env: Object.freeze(env),
        cwd,
        enforced: Object.freeze({
          backend: 'none',
          mode: options.mode,
          readOnlyRoot: false,
          writableRoots: Object.freeze(['/']),
          privateTmp: false,
          network: true,
          namespaces: Object.freeze([]),
        }),
      })
    }
    const probe = await this.probe()
    if (!probe.available) throw new SandboxUnavailableError({ bwrapPath: this.bwrapPath, cause: probe.cause, ...(probe.timedOut && { timedOut: true }) })
    if (!options.network && !probe.namespaces.includes('net')) {
      throw new SandboxUnavailableError({ bwrapPath: this.bwrapPath, cause: 'bwrap did not create a network namespace, so network-off cannot be enforced' })
    }
    if (!cwdVisibleInSandbox(cwd, options)) {
      throw new SandboxError(
        'sandbox-request-invalid',
        `working directory ${cwd} is hidden inside the sandbox (${[PRIVATE_TMP, ...HIDDEN_DIRS].join(', ')}, /dev and /proc are private); use a directory under ${options.workspaceRoots[0]}`,
        { cwd },
      )
    }
    // Programs on the command's PATH, and the Node running us, stay runnable even where they live
    // under a directory the sandbox makes private (a CI clone under /tmp with its own Node).
    const toolDirs = [...(env.PATH ?? '').split(':'), path.dirname(process.execPath)].filter((dir) => dir !== '')
    const { argv, report } = buildBwrapArgs({ bwrapPath: this.bwrapPath, options, cwd, argv: request.argv, namespaces: probe.namespaces, toolDirs })
    return Object.freeze({ argv: Object.freeze(argv), env: Object.freeze({ ...env, TMPDIR: PRIVATE_TMP }), cwd, enforced: report })
  }

  private effectiveOptions(overrides: Partial<SandboxOptions> | undefined): SandboxOptions {
    const base = this.ctx.sandboxPolicy.options()
    if (!overrides) return base
    return normalizeOptions({ ...base, ...overrides })
  }
}

function realCwd(cwd: string): string {
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) {
    throw new SandboxError('sandbox-request-invalid', `working directory ${JSON.stringify(cwd)} must be an absolute path`, { cwd })
  }
  try {
    const real = fs.realpathSync(cwd)
    if (fs.statSync(real).isDirectory()) return real
  } catch {}
  throw new SandboxError('sandbox-request-invalid', `working directory ${cwd} does not exist or is not a directory`, { cwd })
}

function cleanEnv(env: Readonly<Record<string, string | undefined>> | undefined): Record<string, string> {
  const result: Record<string, string> = {}
  if (env) {
    for (const [key, value] of Object.entries(env)) if (typeof value === 'string') result[key] = value
    return result
  }
  for (const [key, value] of Object.entries(process.env)) {
    if (typeof value !== 'string') continue
    if ((DEFAULT_ENV_KEYS as readonly string[]).includes(key) || key.startsWith('LC_')) result[key] = value
  }
  return result
}
