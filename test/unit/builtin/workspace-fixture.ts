/**
 * Fixture for the workspace tools: a root context with the registry, approval, sandbox policy
 * (a fresh temporary workspace), sandbox, permission presets, fs observation policy and the
 * workspace tools, plus a directory outside the workspace (in /var/tmp, not the sandbox-private /tmp).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import * as workspaceTools from '../../../src/builtin/workspace-tools.ts'
import { Approval } from '../../../src/policy/approval.ts'
import * as fsObservationPolicy from '../../../src/policy/fs-observation-policy.ts'
import { type PermissionPresetName, PermissionPresets } from '../../../src/policy/permission-presets.ts'
import { Sandbox } from '../../../src/policy/sandbox.ts'
import { SandboxPolicy } from '../../../src/policy/sandbox-policy.ts'
import { ToolRegistry } from '../../../src/pipeline/tool-registry.ts'
import type { ExecuteOptions } from '../../../src/tools/types.ts'

const OUTSIDE_PARENT = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir()

export interface WorkspaceFixture {
  root: Context
  workspace: string
  outside: string
  call(name: string, args: unknown, options?: ExecuteOptions): ReturnType<ToolRegistry['execute']>
  file(relative: string): string
  cleanup(): void
}

export async function workspaceFixture(options: { preset?: PermissionPresetName; fsObservation?: boolean } = {}): Promise<WorkspaceFixture> {
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ws-')))
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(OUTSIDE_PARENT, 'ptc-out-')))
  const root = new Context()
  await root.plugin(ToolRegistry)
  await root.plugin(Approval)
  await root.plugin(SandboxPolicy, { workspaceRoots: [workspace] })
  await root.plugin(Sandbox)
  await root.plugin(PermissionPresets, { preset: options.preset ?? 'workspace-write' })
  if (options.fsObservation !== false) await root.plugin(fsObservationPolicy)
  await root.plugin(workspaceTools)
  return {
    root,
    workspace,
    outside,
    call: (name, args, callOptions = { agent: 'agent-1' }) => root.tools.execute({ name, arguments: args }, callOptions),
    file: (relative) => path.join(workspace, relative),
    cleanup() {
      fs.rmSync(workspace, { recursive: true, force: true })
      fs.rmSync(outside, { recursive: true, force: true })
    },
  }
}

/** The text of a result's content. */
export const contentText = (result: { content: readonly { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('')
