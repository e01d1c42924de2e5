import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decideAccess, PERMISSION_PRESETS, type ApprovalOptions } from '../../../src/policy/permission-presets.ts'
import type { SandboxOptions } from '../../../src/workspace/workspace-options.ts'
import type { ApprovalRequest } from '../../../src/tools/types.ts'
import { type WorkspaceFixture, workspaceFixture } from '../builtin/workspace-fixture.ts'

let ws: WorkspaceFixture
beforeEach(async () => {
  ws = await workspaceFixture()
})
afterEach(() => ws.cleanup())

describe('ctx.permissionPresets', () => {
  it('S8 defaults to workspace-write', () => {
    expect(ws.root.permissionPresets.current).toBe('workspace-write')
    expect(ws.root.sandboxPolicy.mode).toBe('workspace-write')
    expect(ws.root.permissionPresets.approval).toEqual({ preset: 'workspace-write', writeOutsideWorkspace: 'ask', network: 'ask' })
  })

  it('S8 a switch writes one permission/preset event that reaches both the sandbox and the approval options', () => {
    const seen: string[] = []
    ws.root.on('permission/preset', ({ preset, previous }) => void seen.push(`preset ${previous}->${preset.name}`))
    ws.root.on('sandbox/options', (options) => void seen.push(`sandbox ${options.mode} network=${options.network}`))
    ws.root.on('approval/options', (options) => void seen.push(`approval ${options.preset} write-outside=${options.writeOutsideWorkspace} network=${options.network}`))
    ws.root.permissionPresets.switch('read-only')
    ws.root.permissionPresets.switch('danger-full-access')
    // The service's own permission/preset listener (registered first) carries it to both option sets.
    expect(seen).toEqual([
      'sandbox read-only network=false',
      'approval read-only write-outside=deny network=deny',
      'preset workspace-write->read-only',
      'sandbox danger-full-access network=true',
      'approval danger-full-access write-outside=allow network=allow',
      'preset read-only->danger-full-access',
    ])
    expect(ws.root.sandboxPolicy.mode).toBe('danger-full-access')
    expect(ws.root.permissionPresets.approval.network).toBe('allow')
  })

  it('S8 an unknown preset is a clear error and changes nothing', () => {
    expect(() => ws.root.permissionPresets.switch('yolo' as never)).toThrow(/unknown permission preset "yolo"/)
    expect(ws.root.sandboxPolicy.mode).toBe('workspace-write')
  })

  it('S8 read-only refuses fs writes inside the workspace with a reason naming the preset', async () => {
    ws.root.permissionPresets.switch('read-only')
    const result = await ws.call('write_file', { path: 'new.txt', content: 'x' })
    expect(result.error?.message).toMatch(/read-only.*switch to the workspace-write preset/)
    expect(fs.existsSync(ws.file('new.txt'))).toBe(false)
    expect((await ws.call('bash', { command: 'true', network: true })).error?.message).toMatch(/Network access is not allowed under the read-only preset/)
  })

  it('S8.2 workspace-write asks before a write outside the workspace; headless (no responder) denies', async () => {
    const target = path.join(ws.outside, 'out.txt')
    const result = await ws.call('write_file', { path: target, content: 'x' })
    expect(result.error).toMatchObject({ kind: 'denied' })
    expect(result.error?.message).toMatch(/needs approval .*write .*outside the workspace.*no approval responder answered/)
    expect(fs.existsSync(target)).toBe(false)
  })

  it('S8.1 an approval is allowed-once: it covers that call only, and the next call asks again', async () => {
    const requests: ApprovalRequest[] = []
    ws.root.approval.respond((request) => (requests.push(request), 'allowed-once'))
    const target = path.join(ws.outside, 'out.txt')
    expect((await ws.call('write_file', { path: target, content: 'x' })).isError).toBe(false)
    expect(fs.readFileSync(target, 'utf8')).toBe('x')
    expect(requests).toHaveLength(1)
    expect(requests[0]!.displayReason).toBe(`Allow write_file to write ${target}, outside the workspace? (once)`)
    // Same file again: asks again (and the writer recorded what it wrote, so no read is needed).
    expect((await ws.call('write_file', { path: target, content: 'y' })).isError).toBe(false)
    expect(requests).toHaveLength(2)
    // Writes inside the workspace never ask.
    expect((await ws.call('write_file', { path: 'in.txt', content: 'z' })).isError).toBe(false)
    expect(requests).toHaveLength(2)
  })

  it('S8.1 a refused approval denies and nothing is written', async () => {
    ws.root.approval.respond(() => 'denied')
    const target = path.join(ws.outside, 'out.txt')
    const result = await ws.call('write_file', { path: target, content: 'x' })
    expect(result.error?.message).toMatch(/Approval was refused/)
    expect(fs.existsSync(target)).toBe(false)
  })

  it('S5.3 an ask with no agent is denied without asking', async () => {
    let asked = 0
    ws.root.approval.respond(() => (asked++, 'allowed-once'))
    const result = await ws.call('write_file', { path: path.join(ws.outside, 'out.txt'), content: 'x' }, {})
    expect(result.error?.message).toMatch(/without an agent/)
    expect(asked).toBe(0)
  })

  it('S8 danger-full-access never asks and may write anywhere', async () => {
    let asked = 0
    ws.root.approval.respond(() => (asked++, 'denied'))
    ws.root.permissionPresets.switch('danger-full-access')
    const target = path.join(ws.outside, 'out.txt')
    expect((await ws.call('write_file', { path: target, content: 'x' })).isError).toBe(false)
    expect(asked).toBe(0)
  })

  it('S3.1 a later pre-execute denial still wins over the preset', async () => {
    ws.root.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'house rule' }))
    ws.root.approval.respond(() => 'allowed-once')
    expect((await ws.call('write_file', { path: path.join(ws.outside, 'o.txt'), content: 'x' })).error?.message).toBe('house rule')
  })
})

describe('decideAccess (pure)', () => {
  const options = (mode: SandboxOptions['mode']): SandboxOptions => ({ mode, network: mode === 'danger-full-access', workspaceRoots: [ws.workspace], writableRoots: [] })
  const approval = (name: keyof typeof PERMISSION_PRESETS): ApprovalOptions => PERMISSION_PRESETS[name].approval

  it('S8 the preset table combines a sandbox mode and an approval policy', () => {
    expect(decideAccess({ writes: ['a.txt'] }, approval('workspace-write'), options('workspace-write'))).toEqual({ kind: 'allow' })
    expect(decideAccess({ writes: ['/var/x'] }, approval('workspace-write'), options('workspace-write'))).toEqual({ kind: 'ask', escalation: { mode: 'danger-full-access' }, needs: ['write /var/x, outside the workspace'] })
    expect(decideAccess({ network: true }, approval('workspace-write'), options('workspace-write'))).toEqual({ kind: 'ask', escalation: { network: true }, needs: ['use the network'] })
    expect(decideAccess({ network: true }, approval('read-only'), options('read-only'))).toMatchObject({ kind: 'deny' })
    expect(decideAccess({ writes: ['/var/x'] }, approval('read-only'), options('read-only'))).toEqual({ kind: 'allow' }) // the sandbox policy refuses it itself
    expect(decideAccess({ writes: ['/var/x'], network: true }, approval('danger-full-access'), options('danger-full-access'))).toEqual({ kind: 'allow' })
  })
})
