/**
 * `ctx.permissionPresets` (SPEC S8, S8.1, S8.2, S3.1): the user-facing presets `read-only`,
 * `workspace-write` (default) and `danger-full-access`, each a sandbox mode plus an approval
 * policy. A switch writes one `permission/preset` event; this service's own listener carries it
 * to both option sets: the sandbox options (`ctx.sandboxPolicy.setMode`, which emits
 * `sandbox/options`) and the approval options (emitted as `approval/options` and read by this
 * plugin's `tools/pre-execute` listener). The policy lives on hooks, never in tool bodies: tool
 * plugins describe what a call touches on `permission/access`; this listener decides allow / ask
 * / deny, and an approved `ask` widens the sandbox for that one call only (allowed-once, S8.1),
 * answered on `permission/escalation` to the tool at the moment of use.
 */
import { type Context, Service } from 'cordis'
import { bail, eventHooks, type EventHooks } from '../pipeline/cordis-adapter.ts'
import { isThenable } from '../pipeline/thenable.ts'
import type { PreToolDecision, ToolExecution } from '../tools/types.ts'
import { resolvePathAgainst } from '../workspace/resolve-path.ts'
import type { AccessRequest } from '../workspace/workspace-events.ts'
import type { SandboxMode, SandboxOptions } from '../workspace/workspace-options.ts'

declare module 'cordis' {
  interface Context {
    permissionPresets: PermissionPresets
  }
  interface Events {
    /** A preset was switched to (S8); reaches the sandbox and the approval options. */
    'permission/preset'(event: PresetSwitch): void
    /** The approval options changed (S8), after a `permission/preset`. */
    'approval/options'(options: ApprovalOptions): void
  }
}

/** The names of the presets. */
export type PermissionPresetName = 'read-only' | 'workspace-write' | 'danger-full-access'

/** What to do when a call needs a right the sandbox mode does not give: run it, ask once, or refuse. */
export type EscalationRule = 'allow' | 'ask' | 'deny'

/**
 * The approval options of a preset (S8): the rule for fs writes outside the workspace roots and
 * the rule for a command asking for network access.
 */
export interface ApprovalOptions {
  readonly preset: PermissionPresetName
  readonly writeOutsideWorkspace: EscalationRule
  readonly network: EscalationRule
}

/** One preset: a sandbox mode (with its network default) and an approval policy (S8). */
export interface PermissionPreset {
  readonly name: PermissionPresetName
  readonly description: string
  readonly sandbox: { readonly mode: SandboxMode; readonly network: boolean }
  readonly approval: ApprovalOptions
}

/** Payload of `permission/preset`: the preset switched to and the one it replaced (if any). */
export interface PresetSwitch {
  readonly preset: PermissionPreset
  readonly previous: PermissionPresetName | undefined
}

/** The preset table (S8). */
export const PERMISSION_PRESETS = Object.freeze({
  'read-only': {
    name: 'read-only',
    description: 'Read anything in the workspace; no writes, no network, no asking.',
    sandbox: { mode: 'read-only', network: false },
    approval: { preset: 'read-only', writeOutsideWorkspace: 'deny', network: 'deny' },
  },
  'workspace-write': {
    name: 'workspace-write',
    description: 'Read and write inside the workspace; ask before writing outside it or using the network.',
    sandbox: { mode: 'workspace-write', network: false },
    approval: { preset: 'workspace-write', writeOutsideWorkspace: 'ask', network: 'ask' },
  },
  'danger-full-access': {
    name: 'danger-full-access',
    description: 'No sandbox and no asking: commands run with your full rights and network.',
    sandbox: { mode: 'danger-full-access', network: true },
    approval: { preset: 'danger-full-access', writeOutsideWorkspace: 'allow', network: 'allow' },
  },
} as const satisfies Record<PermissionPresetName, PermissionPreset>)

/** The preset names, strictest first. */
export const PERMISSION_PRESET_NAMES = Object.keys(PERMISSION_PRESETS) as PermissionPresetName[]

/** Is `value` a preset name? */
export function isPermissionPresetName(value: unknown): value is PermissionPresetName {
  return typeof value === 'string' && Object.hasOwn(PERMISSION_PRESETS, value)
}

/** Configuration: the preset to start with (default `workspace-write`). */
export interface PermissionPresetsConfig {
  preset?: PermissionPresetName
}

/**
 * The decision for one call's access under `approval` and the current sandbox `options` (pure,
 * S8): `allow` with an optional per-call `escalation`, `ask` with the escalation it would grant and
 * what to ask, or `deny`. Writes the sandbox policy refuses for reasons a wider mode would not fix
 * (device files, read-only mode) are left to the tool, which reports the policy's own reason.
 */
export function decideAccess(
  access: AccessRequest,
  approval: ApprovalOptions,
  options: SandboxOptions,
): { kind: 'allow'; escalation?: Partial<SandboxOptions> } | { kind: 'ask'; escalation: Partial<SandboxOptions>; needs: string[] } | { kind: 'deny'; reason: string } {
  const escalation: { -readonly [K in keyof SandboxOptions]?: SandboxOptions[K] } = {}
  const needs: string[] = []
  if (access.network === true && !options.network) {
    if (approval.network === 'deny') {
      return { kind: 'deny', reason: `Network access is not allowed under the ${approval.preset} preset; run the command without network, or ask the user to switch presets.` }
    }
    escalation.network = true
    if (approval.network === 'ask') needs.push('use the network')
  }
  for (const write of access.writes ?? []) {
    if (resolvePathAgainst(options, write, 'write').ok) continue
    const widened = resolvePathAgainst({ ...options, mode: 'danger-full-access' }, write, 'write')
    if (!widened.ok || options.mode === 'read-only' || approval.writeOutsideWorkspace === 'deny') continue
    escalation.mode = 'danger-full-access'
    if (approval.writeOutsideWorkspace === 'ask') needs.push(`write ${widened.path}, outside the workspace`)
  }
  const granted = Object.keys(escalation).length > 0
  if (needs.length) return { kind: 'ask', escalation, needs }
  return granted ? { kind: 'allow', escalation } : { kind: 'allow' }
}

/** The `ctx.permissionPresets` service (S8). Install after `SandboxPolicy` (and `Approval`). */
export class PermissionPresets extends Service {
  static inject = ['sandboxPolicy']

  private currentName: PermissionPresetName | undefined
  private approvalOptions: ApprovalOptions
  // Escalations an `ask` would grant, by call token: the body only runs if it was allowed once.
  private readonly grants = new WeakMap<symbol, Partial<SandboxOptions>>()
  /** The raw hook table: `permission/access` is asked on every call (issue 12). */
  private readonly events: EventHooks

  constructor(ctx: Context, config: PermissionPresetsConfig = {}) {
    super(ctx, 'permissionPresets')
    this.events = eventHooks(ctx)
    const initial = config.preset ?? 'workspace-write'
    if (!isPermissionPresetName(initial)) throw new TypeError(`unknown permission preset ${JSON.stringify(initial)}; expected one of ${PERMISSION_PRESET_NAMES.join(', ')}`)
    this.approvalOptions = PERMISSION_PRESETS[initial].approval
    // The one listener that carries a switch to both option sets (S8).
    ctx.on('permission/preset', ({ preset }) => {
      ctx.sandboxPolicy.setMode(preset.sandbox.mode, preset.sandbox.network)
      this.approvalOptions = preset.approval
      ctx.emit('approval/options', preset.approval)
    })
    ctx.on('tools/pre-execute', (execution, next) => this.preExecute(execution, next))
    ctx.on('permission/escalation', (execution) => this.grants.get(execution.token))
    this.switch(initial)
  }

  /** The active preset's name. */
  get current(): PermissionPresetName {
    return this.currentName!
  }

  /** The active approval options (S8). */
  get approval(): ApprovalOptions {
    return this.approvalOptions
  }

  /** The preset table entry for `name`. */
  get(name: PermissionPresetName): PermissionPreset {
    return PERMISSION_PRESETS[name]
  }

  /**
   * Switch to `name`: emits `permission/preset`, which sets the sandbox mode (`sandbox/options`)
   * and the approval options (`approval/options`). Applies to the next call; emits even when the
   * preset is unchanged, so a switch is always observable.
   * @returns the preset switched to.
   * @throws TypeError for an unknown preset name.
   */
  switch(name: PermissionPresetName): PermissionPreset {
    if (!isPermissionPresetName(name)) throw new TypeError(`unknown permission preset ${JSON.stringify(name)}; expected one of ${PERMISSION_PRESET_NAMES.join(', ')}`)
    const previous = this.currentName
    this.currentName = name
    this.ctx.emit('permission/preset', { preset: PERMISSION_PRESETS[name], previous })
    return PERMISSION_PRESETS[name]
  }

  /**
   * Synchronous unless a later listener answers asynchronously: a call no `permission/access`
   * responder claims (most calls from code) adds no promise to the pipeline (issue 12).
   */
  private preExecute(execution: Readonly<ToolExecution>, next: () => PreToolDecision | Promise<PreToolDecision>): PreToolDecision | Promise<PreToolDecision> {
    const access = bail<AccessRequest>(this.events, 'permission/access', [execution])
    if (!access) return next()
    const decision = decideAccess(access, this.approvalOptions, this.ctx.sandboxPolicy.options())
    if (decision.kind === 'deny') return { kind: 'deny', reason: decision.reason }
    if (decision.escalation) this.grants.set(execution.token, decision.escalation)
    // Later listeners still get their say; a denial, cancel or ask of theirs stands.
    const combine = (later: PreToolDecision): PreToolDecision => {
      if (decision.kind === 'allow' || later.kind !== 'allow') return later
      const what = decision.needs.join(' and ')
      return { kind: 'ask', reason: `${this.currentName} preset: ${execution.name} needs approval to ${what}`, displayReason: `Allow ${execution.name} to ${what}? (once)` }
    }
    const later = next()
    return isThenable(later) ? Promise.resolve(later).then(combine) : combine(later as PreToolDecision)
  }
}
