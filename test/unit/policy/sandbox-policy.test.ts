import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SandboxError } from '../../../src/policy/sandbox-errors.ts'
import { SandboxPolicy } from '../../../src/policy/sandbox-policy.ts'
import type { SandboxOptions } from '../../../src/workspace/workspace-options.ts'

describe('SandboxPolicy', () => {
  let workspace: string
  let outside: string
  let root: Context

  beforeEach(async () => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ws-')))
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-out-')))
    fs.mkdirSync(path.join(workspace, 'src'))
    fs.writeFileSync(path.join(workspace, 'src', 'a.txt'), 'a')
    root = new Context()
    await root.plugin(SandboxPolicy, { workspaceRoots: [workspace], mode: 'workspace-write' })
  })
  afterEach(() => {
    fs.rmSync(workspace, { recursive: true, force: true })
    fs.rmSync(outside, { recursive: true, force: true })
  })

  it('S8 defaults: network off, roots realpathed, options frozen', () => {
    const policy = root.sandboxPolicy
    expect(policy.mode).toBe('workspace-write')
    expect(policy.network).toBe(false)
    expect(policy.workspaceRoots).toEqual([workspace])
    expect(Object.isFrozen(policy.options())).toBe(true)
  })

  it('S8 a missing or relative workspace root is a clear error', () => {
    const missing = path.join(outside, 'nope')
    expect(() => new SandboxPolicy(new Context(), { workspaceRoots: [missing] })).toThrow(`workspace root ${missing} does not exist or cannot be resolved (ENOENT): create the folder first, or name an existing one`)
    expect(() => new SandboxPolicy(new Context(), { workspaceRoots: ['rel/dir'] })).toThrow(/must be an absolute path/)
    // Under a file: it cannot be created, so the advice is not to create it.
    const file = path.join(outside, 'a-file')
    fs.writeFileSync(file, 'x')
    expect(() => new SandboxPolicy(new Context(), { workspaceRoots: [path.join(file, 'sub')] })).toThrow(`workspace root ${path.join(file, 'sub')} does not exist or cannot be resolved (ENOTDIR): name a folder this process can reach`)
    try {
      new SandboxPolicy(new Context(), { workspaceRoots: [missing] })
    } catch (error) {
      expect(SandboxError.isInstance(error)).toBe(true)
      expect((error as SandboxError).code).toBe('sandbox-policy-invalid')
    }
  })

  it('S8 setMode emits sandbox/options with the new snapshot', () => {
    const seen: SandboxOptions[] = []
    root.on('sandbox/options', (options) => void seen.push(options))
    const result = root.sandboxPolicy.setMode('read-only', true)
    expect(seen).toEqual([result])
    expect(result).toMatchObject({ mode: 'read-only', network: true, workspaceRoots: [workspace] })
    root.sandboxPolicy.setMode('workspace-write')
    expect(seen[1]).toMatchObject({ mode: 'workspace-write', network: true })
    expect(() => root.sandboxPolicy.setMode('yolo' as never)).toThrow(/unknown sandbox mode "yolo"/)
  })

  it('S8 relative paths resolve against the first workspace root', () => {
    expect(root.sandboxPolicy.resolveWorkspacePath('src/a.txt', 'read')).toEqual({ ok: true, path: path.join(workspace, 'src/a.txt') })
    expect(root.sandboxPolicy.resolveWorkspacePath('src/new/b.txt', 'write')).toEqual({ ok: true, path: path.join(workspace, 'src/new/b.txt') })
    expect(root.sandboxPolicy.resolveWorkspacePath('src/../src/a.txt', 'read')).toEqual({ ok: true, path: path.join(workspace, 'src/a.txt') })
  })

  it('S8 ".." escapes are rejected with a reason that says what is allowed', () => {
    const result = root.sandboxPolicy.resolveWorkspacePath('../../etc/passwd', 'read')
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.reason).toContain('is outside the workspace roots')
      expect(result.reason).toContain("'..'")
      expect(result.reason).toContain(`use a path under ${workspace}`)
    }
  })

  it('S8 absolute paths outside every root are rejected', () => {
    const result = root.sandboxPolicy.resolveWorkspacePath(path.join(outside, 'x.txt'), 'write')
    expect(result).toEqual({
      ok: false,
      reason: `path ${path.join(outside, 'x.txt')} is outside the workspace roots [${workspace}]; use a path under ${workspace}`,
    })
  })

  it('S8 a symlink inside the workspace that points outside is judged by its target', () => {
    fs.symlinkSync(outside, path.join(workspace, 'escape'))
    for (const intent of ['read', 'write'] as const) {
      const result = root.sandboxPolicy.resolveWorkspacePath('escape/new.txt', intent)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.reason).toContain(`resolves through a symbolic link to ${path.join(outside, 'new.txt')}`)
    }
  })

  it('S8 a dangling symlink is rejected: writing through it would create its target anywhere', () => {
    fs.symlinkSync(path.join(outside, 'later.txt'), path.join(workspace, 'dangling'))
    const result = root.sandboxPolicy.resolveWorkspacePath('dangling', 'write')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toContain('symbolic link to a missing target')
  })

  it('S8 device files, FIFOs and sockets are rejected, in every mode', () => {
    execFileSync('mkfifo', [path.join(workspace, 'fifo')])
    const fifo = root.sandboxPolicy.resolveWorkspacePath('fifo', 'read')
    expect(fifo).toEqual({ ok: false, reason: 'path fifo is a FIFO (named pipe), not a regular file or directory; only regular files and directories can be used' })
    root.sandboxPolicy.setMode('danger-full-access')
    const zero = root.sandboxPolicy.resolveWorkspacePath('/dev/zero', 'read')
    expect(zero.ok).toBe(false)
    if (!zero.ok) expect(zero.reason).toContain('/dev/zero is a character device')
  })

  it('S8 /dev/zero is outside the workspace under workspace-write', () => {
    const result = root.sandboxPolicy.resolveWorkspacePath('/dev/zero', 'read')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toContain('/dev/zero is outside the workspace roots')
  })

  it('S8 read-only mode rejects every write, naming the mode; reads still work', () => {
    root.sandboxPolicy.setMode('read-only')
    const result = root.sandboxPolicy.resolveWorkspacePath('src/a.txt', 'write')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toContain('the sandbox mode is read-only')
    expect(root.sandboxPolicy.resolveWorkspacePath('src/a.txt', 'read').ok).toBe(true)
  })

  it('S8 danger-full-access allows any location', () => {
    root.sandboxPolicy.setMode('danger-full-access')
    expect(root.sandboxPolicy.resolveWorkspacePath(path.join(outside, 'x.txt'), 'write')).toEqual({ ok: true, path: path.join(outside, 'x.txt') })
  })

  it('S8 extra writable roots are allowed', async () => {
    const ctx = new Context()
    await ctx.plugin(SandboxPolicy, { workspaceRoots: [workspace], writableRoots: [outside] })
    expect(ctx.sandboxPolicy.resolveWorkspacePath(path.join(outside, 'x.txt'), 'write')).toEqual({ ok: true, path: path.join(outside, 'x.txt') })
  })
})
