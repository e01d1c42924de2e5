/**
 * Contracts between the workspace tools and the policy plugins that hang on them (SPEC S3.1, S8):
 * the `fs/*` observation events and gate (read-before-edit lives under the fs tools), and the
 * `permission/*` access and escalation events the permission presets answer. Types only; both
 * sides import this module, neither imports the other.
 */
import type { ToolExecution } from '../tools/types.ts'
import type { SandboxOptions } from './workspace-options.ts'

/**
 * What an fs tool observed of one file (S8): `path` is the absolute, symlink-free path; `hash` the
 * lowercase hex SHA-256 of the whole file's bytes; `mtimeMs` its modification time (ms since the
 * epoch, as `fs.Stats.mtimeMs`); `size` in bytes. `agent` is the calling agent, `undefined` for
 * calls without one.
 */
export interface FsObservation {
  readonly agent: string | undefined
  readonly tool: string
  readonly path: string
  readonly hash: string
  readonly mtimeMs: number
  readonly size: number
}

/** Payload of `fs/written`: an fs tool wrote `path`; `created` when the file did not exist before. */
export interface FsWritten extends FsObservation {
  readonly created: boolean
}

/**
 * Payload of `fs/write-gate` (S8): an fs tool is about to write `path` (absolute, symlink-free).
 * `current` is what is on disk right now (absent when the file does not exist yet, `exists: false`).
 */
export interface FsWriteGate {
  readonly agent: string | undefined
  readonly tool: string
  readonly path: string
  readonly exists: boolean
  /**
   * The file on disk now, when it exists: content hash, mtime (ms), and whether it is UTF-8 text
   * (`false`: read_file refuses it, so reading it first is not possible as it is).
   */
  readonly current?: { readonly hash: string; readonly mtimeMs: number; readonly utf8?: boolean }
}

/**
 * What one call is about to touch, as the tool plugin describes it (not a permission decision,
 * S3.1): `writes` are the raw path arguments it will write; `network` is true when it asks for
 * network access. The permission presets decide what to ask for.
 */
export interface AccessRequest {
  readonly writes?: readonly string[]
  readonly network?: boolean
}

declare module 'cordis' {
  interface Events {
    /** An fs tool read a whole file (S8); fs-observation-policy records it per agent. */
    'fs/read'(observation: FsObservation): void
    /** An fs tool wrote a file (S8); the writer's record is refreshed. */
    'fs/written'(written: FsWritten): void
    /**
     * Gate before an fs write (S8), dispatched with `ctx.bail`: the first listener that returns a
     * non-empty string denies the write with that model-facing reason; `undefined` lets it pass.
     */
    'fs/write-gate'(request: FsWriteGate): string | undefined
    /** What a call will touch (dispatched with `ctx.bail`); answered by the plugin that owns the tool. */
    'permission/access'(execution: Readonly<ToolExecution>): AccessRequest | undefined
    /**
     * Per-call widening of the sandbox policy that an approval granted (S8.1: this call only),
     * dispatched with `ctx.bail` by tools at the moment of use. `undefined`: the deployment policy.
     */
    'permission/escalation'(execution: Readonly<ToolExecution>): Partial<SandboxOptions> | undefined
  }
}
