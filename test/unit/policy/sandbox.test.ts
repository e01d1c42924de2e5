import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runProcess } from '../../../src/builtin/process-runner.ts'
import { Sandbox } from '../../../src/policy/sandbox.ts'
import { SandboxUnavailableError } from '../../../src/policy/sandbox-errors.ts'
import { SandboxPolicy } from '../../../src/policy/sandbox-policy.ts'
import type { SandboxPolicyConfig } from '../../../src/policy/sandbox-policy.ts'
import type { SandboxConfig } from '../../../src/policy/sandbox.ts'
import type { SandboxOptions } from '../../../src/workspace/workspace-options.ts'

// The outside dir lives in /var/tmp, not /tmp: the sandbox's private /tmp would hide a host /tmp
// dir anyway, and these tests must show the read-only root mount itself refusing the write.
const OUTSIDE_PARENT = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir()

async function setup(policy: Omit<SandboxPolicyConfig, 'workspaceRoots'>, workspace: string, sandbox: SandboxConfig = {}) {
  const root = new Context()
  await root.plugin(SandboxPolicy, { workspaceRoots: [workspace], ...policy })
  await root.plugin(Sandbox, sandbox)
  return root
}

/** Run `script` with bash inside the sandbox the context's policy describes. */
async function sandboxed(root: Context, script: string, policy?: Partial<SandboxOptions>) {
  const cwd = root.sandboxPolicy.workspaceRoots[0]!
  const command = await root.sandbox.wrap({ argv: ['bash', '-c', script], cwd, policy })
  const result = await runProcess({ argv: command.argv, cwd: command.cwd, env: command.env, timeoutMs: 10_000 })
  return { ...result, enforced: command.enforced }
}

describe('Sandbox (bwrap)', () => {
  let workspace: string
  let outside: string

  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ws-')))
    outside = fs.realpathSync(fs.mkdtempSync(path.join(OUTSIDE_PARENT, 'ptc-out-')))
  })
  afterEach(() => {
    fs.rmSync(workspace, { recursive: true, force: true })
    fs.rmSync(outside, { recursive: true, force: true })
  })

  it('S8 bwrap is available on this machine (CI installs bubblewrap)', async () => {
    const root = await setup({}, workspace)
    expect(await root.sandbox.available()).toBe(true)
  })

  it('S8 a command cannot write outside the workspace under workspace-write', async () => {
    const root = await setup({ mode: 'workspace-write' }, workspace)
    const inside = await sandboxed(root, 'echo hi > inside.txt && cat inside.txt')
    expect(inside).toMatchObject({ exitCode: 0, stdout: 'hi\n' })
    expect(fs.readFileSync(path.join(workspace, 'inside.txt'), 'utf8')).toBe('hi\n')

    const target = path.join(outside, 'escaped.txt')
    const escaped = await sandboxed(root, `echo hi > ${target}`)
    expect(escaped.exitCode).not.toBe(0)
    expect(fs.existsSync(target)).toBe(false)
    // The host's own directories (outside the hidden tmpfs ones) are there but read-only.
    const hostTarget = `/etc/ptc-escaped-${process.pid}`
    const readOnly = await sandboxed(root, `echo hi > ${hostTarget}`)
    expect(readOnly.stderr).toMatch(/Read-only file system/)
    expect(fs.existsSync(hostTarget)).toBe(false)
  })

  it('S8 the host /tmp is replaced by a private tmp: files written there never reach the host', async () => {
    const root = await setup({ mode: 'workspace-write' }, workspace)
    const name = `ptc-private-${process.pid}-${Date.now()}`
    const result = await sandboxed(root, `echo x > /tmp/${name} && ls /tmp && echo "TMPDIR=$TMPDIR"`)
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('TMPDIR=/tmp')
    expect(result.stdout.split('\n')).not.toContain(path.basename(outside))
    expect(fs.existsSync(path.join('/tmp', name))).toBe(false)
  })

  it('S8 under read-only even the workspace is not writable, but it is readable', async () => {
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'content')
    const root = await setup({ mode: 'read-only' }, workspace)
    const result = await sandboxed(root, 'cat a.txt; echo no > b.txt')
    expect(result.stdout).toBe('content')
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toMatch(/Read-only file system/)
    expect(fs.existsSync(path.join(workspace, 'b.txt'))).toBe(false)
    expect(result.enforced).toMatchObject({ backend: 'bwrap', mode: 'read-only', readOnlyRoot: true, writableRoots: [], privateTmp: true, network: false })
  })

  it('S8 a symlink in the workspace pointing outside cannot be written through, and resolveWorkspacePath rejects it', async () => {
    fs.symlinkSync(outside, path.join(workspace, 'escape'))
    const root = await setup({ mode: 'workspace-write' }, workspace)
    const result = await sandboxed(root, 'echo hi > escape/through-link.txt')
    expect(result.exitCode).not.toBe(0)
    expect(fs.existsSync(path.join(outside, 'through-link.txt'))).toBe(false)
    const resolved = root.sandboxPolicy.resolveWorkspacePath('escape/through-link.txt', 'write')
    expect(resolved.ok).toBe(false)
    if (!resolved.ok) expect(resolved.reason).toContain('outside the workspace roots')
  })

  it('S8 the .ptc state folder is hidden from commands: the journal can be neither read nor rewritten, spills not redirected', async () => {
    fs.mkdirSync(path.join(workspace, '.ptc', 'journal'), { recursive: true })
    fs.mkdirSync(path.join(workspace, '.ptc', 'spill'))
    fs.writeFileSync(path.join(workspace, '.ptc', 'journal', 's.jsonl'), '{"seq":1}\n')
    const root = await setup({ mode: 'workspace-write' }, workspace)
    for (const script of ['echo forged > .ptc/journal/s.jsonl', 'rm .ptc/journal/s.jsonl', `ln -s ${outside} .ptc/spill/agent-1`, 'rm -rf .ptc', 'mv .ptc .ptc-old']) {
      const result = await sandboxed(root, script)
      expect(result.exitCode, script).not.toBe(0)
    }
    expect(fs.readFileSync(path.join(workspace, '.ptc', 'journal', 's.jsonl'), 'utf8')).toBe('{"seq":1}\n')
    expect(fs.readdirSync(path.join(workspace, '.ptc', 'spill'))).toEqual([])
    // The rest of the workspace stays writable; the state folder is an empty private mount.
    expect(await sandboxed(root, 'echo ok > mine.txt && ls -A .ptc | wc -l && cat .ptc/journal/s.jsonl')).toMatchObject({ stdout: '0\n' })
    expect(fs.readFileSync(path.join(workspace, 'mine.txt'), 'utf8')).toBe('ok\n')
  })

  it('S8 host secrets are masked: /etc/shadow gives nothing, credential stores in homes are empty, the rest of a home stays readable', async () => {
    const root = await setup({ mode: 'workspace-write' }, workspace)
    // Masked with the host's /dev/null: the user namespace denies opening it, or it reads empty.
    const shadow = await sandboxed(root, 'cat /etc/shadow /etc/gshadow 2>/dev/null | wc -c')
    if (fs.existsSync('/etc/shadow')) expect(shadow.stdout).toBe('0\n')
    let home: string | undefined
    try {
      home = fs.realpathSync(fs.mkdtempSync(path.join('/home', 'ptc-home-')))
    } catch {
      return // /home not writable for this user: nothing more to check.
    }
    try {
      fs.mkdirSync(path.join(home, '.ssh'))
      fs.writeFileSync(path.join(home, '.ssh', 'id_test'), 'PRIVATE KEY')
      fs.writeFileSync(path.join(home, '.git-credentials'), 'https://user:token@example.invalid')
      fs.writeFileSync(path.join(home, 'tool.txt'), 'toolchain file')
      const result = await sandboxed(root, `cat ${home}/.ssh/id_test ${home}/.git-credentials 2>/dev/null; echo; cat ${home}/tool.txt`)
      expect(result.stdout).toBe('\ntoolchain file')
      expect(result.stdout).not.toContain('PRIVATE KEY')
      expect(result.stdout).not.toContain('token')
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  })

  it('S8 a program on PATH under the private /tmp (the own Node of a CI clone) stays runnable, read-only', async () => {
    const tools = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-tools-')))
    try {
      fs.writeFileSync(path.join(tools, 'hello-tool'), '#!/bin/sh\necho hello from $0\n', { mode: 0o755 })
      const root = await setup({ mode: 'workspace-write' }, workspace)
      const env = { PATH: `${tools}:/usr/bin:/bin` }
      const command = await root.sandbox.wrap({ argv: ['bash', '-c', `hello-tool; echo x > ${tools}/planted 2>/dev/null || echo read-only`], cwd: workspace, env })
      const result = await runProcess({ argv: command.argv, cwd: command.cwd, env: command.env, timeoutMs: 10_000 })
      expect(result.stdout).toBe(`hello from ${tools}/hello-tool\nread-only\n`)
      expect(fs.existsSync(path.join(tools, 'planted'))).toBe(false)
    } finally {
      fs.rmSync(tools, { recursive: true, force: true })
    }
  })

  it('S8 the report says what was enforced under workspace-write', async () => {
    const extra = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-extra-')))
    try {
      const root = await setup({ mode: 'workspace-write', writableRoots: [extra] }, workspace)
      const command = await root.sandbox.wrap({ argv: ['true'], cwd: workspace })
      expect(command.enforced).toMatchObject({ backend: 'bwrap', mode: 'workspace-write', readOnlyRoot: true, privateTmp: true, network: false })
      expect([...command.enforced.writableRoots].sort()).toEqual([workspace, extra].sort())
      expect(command.enforced.namespaces).toEqual(expect.arrayContaining(['ipc', 'net', 'pid', 'uts']))
      expect(command.argv.slice(-2)).toEqual(['--', 'true'])
      expect(command.argv).toEqual(expect.arrayContaining(['--unshare-all', '--die-with-parent', '--new-session']))
      expect(command.argv).not.toContain('--share-net')
      const written = await sandboxed(root, `echo ok > ${extra}/x && cat ${extra}/x`)
      expect(written.stdout).toBe('ok\n')
    } finally {
      fs.rmSync(extra, { recursive: true, force: true })
    }
  })

  it('S8 the command gets a clean environment: no host secrets unless the consumer passes them', async () => {
    process.env.PTC_TEST_SECRET = 'hunter2'
    try {
      const root = await setup({}, workspace)
      const result = await sandboxed(root, 'echo "[$PTC_TEST_SECRET]" "$PATH"')
      expect(result.stdout).toBe(`[] ${process.env.PATH}\n`)
      const explicit = await root.sandbox.wrap({ argv: ['env'], cwd: workspace, env: { ONLY: '1' } })
      expect(explicit.env).toEqual({ ONLY: '1', TMPDIR: '/tmp' })
    } finally {
      delete process.env.PTC_TEST_SECRET
    }
  })

  it('S8 danger-full-access runs unconfined and reports backend none', async () => {
    const root = await setup({ mode: 'danger-full-access' }, workspace)
    const command = await root.sandbox.wrap({ argv: ['echo', 'hi'], cwd: workspace })
    expect(command.argv).toEqual(['echo', 'hi'])
    expect(command.enforced).toEqual({ backend: 'none', mode: 'danger-full-access', readOnlyRoot: false, writableRoots: ['/'], privateTmp: false, network: true, namespaces: [] })
  })

  it('S8.2 without a working bwrap a sandboxed wrap refuses with a clear error, never runs unconfined', async () => {
    const root = await setup({ mode: 'workspace-write' }, workspace, { bwrapPath: '/nonexistent/bwrap' })
    expect(await root.sandbox.available()).toBe(false)
    const attempt = root.sandbox.wrap({ argv: ['true'], cwd: workspace })
    await expect(attempt).rejects.toThrow(
      'bubblewrap (bwrap) is not installed or cannot create namespaces: install the Debian package bubblewrap, or choose the danger-full-access preset to run unconfined',
    )
    await expect(attempt).rejects.toSatisfy(SandboxUnavailableError.isInstance)
    await expect(root.sandbox.wrap({ argv: ['true'], cwd: workspace, policy: { mode: 'read-only' } })).rejects.toThrow(SandboxUnavailableError)
    // The user's explicit escape hatch still works.
    expect((await root.sandbox.wrap({ argv: ['true'], cwd: workspace, policy: { mode: 'danger-full-access' } })).enforced.backend).toBe('none')
  })

  it('S8 a preset switch (setMode) applies to the next wrapped command', async () => {
    const root = await setup({ mode: 'workspace-write' }, workspace)
    expect((await root.sandbox.wrap({ argv: ['true'], cwd: workspace })).enforced.writableRoots).toEqual([workspace])
    root.sandboxPolicy.setMode('read-only')
    expect((await root.sandbox.wrap({ argv: ['true'], cwd: workspace })).enforced.writableRoots).toEqual([])
  })

  it('S8 a cwd hidden by the private tmp is refused clearly', async () => {
    const root = await setup({}, workspace)
    await expect(root.sandbox.wrap({ argv: ['true'], cwd: os.tmpdir() })).rejects.toThrow(/working directory .* is hidden inside the sandbox/)
    await expect(root.sandbox.wrap({ argv: ['true'], cwd: 'relative' })).rejects.toThrow(/must be an absolute path/)
    await expect(root.sandbox.wrap({ argv: [], cwd: workspace })).rejects.toThrow(/non-empty argv/)
  })

  it('S1.3 aborting a sandboxed command leaves nothing running inside the sandbox', async () => {
    const root = await setup({}, workspace)
    const marker = `31.${process.pid}`
    const command = await root.sandbox.wrap({ argv: ['bash', '-c', `sleep ${marker} & wait`], cwd: workspace })
    const controller = new AbortController()
    const running = runProcess({ argv: command.argv, cwd: command.cwd, env: command.env, signal: controller.signal, killGraceMs: 500 })
    const sleeping = () =>
      fs.readdirSync('/proc').some((entry) => {
        try {
          return /^\d+$/.test(entry) && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${marker}\0`
        } catch {
          return false
        }
      })
    for (let i = 0; i < 100 && !sleeping(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(sleeping()).toBe(true)
    controller.abort()
    expect((await running).aborted).toBe(true)
    // The kernel tears the sandbox's namespace down after bwrap dies: up to 10 s for that on a
    // loaded machine (1 s was not always enough at load 5, a fresh-clone run of round 20).
    for (let i = 0; i < 500 && sleeping(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(sleeping()).toBe(false)
  })

  describe('network', () => {
    let server: net.Server
    let port: number
    beforeAll(async () => {
      server = net.createServer((socket) => socket.end())
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as net.AddressInfo).port
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it('S8 with network off a sandboxed command cannot reach a loopback server on the host', async () => {
      const root = await setup({ network: false }, workspace)
      const result = await sandboxed(root, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`)
      expect(result.exitCode).not.toBe(0)
      expect(result.stdout).toBe('')
      expect(result.enforced.namespaces).toContain('net')
    })

    it('S8 with network off, host AF_UNIX sockets under /run and /var/tmp are unreachable (private tmpfs); one in the workspace is', async () => {
      const dirs = ['/var/tmp', '/run'].filter((parent) => fs.existsSync(parent)).flatMap((parent) => {
        try {
          return [fs.mkdtempSync(path.join(parent, 'ptc-sock-'))]
        } catch {
          return [] // Not writable for this user: nothing to test there.
        }
      })
      const sockets = [...dirs.map((dir) => path.join(dir, 's')), path.join(workspace, 'ws.sock')]
      const servers = await Promise.all(
        sockets.map((socket) => new Promise<net.Server>((resolve) => { const server = net.createServer((c) => c.end()).listen(socket, () => resolve(server)) })),
      )
      try {
        const root = await setup({ network: false }, workspace)
        const client = (socket: string) =>
          `${JSON.stringify(process.execPath)} -e 'require("net").connect(process.argv[1]).on("connect", () => { console.log("connected"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(1) })' ${JSON.stringify(socket)}`
        for (const socket of sockets.slice(0, -1)) {
          const result = await sandboxed(root, client(socket))
          expect(result.stdout, socket).not.toContain('connected')
          expect(result.exitCode, socket).not.toBe(0)
        }
        expect((await sandboxed(root, client(path.join(workspace, 'ws.sock')))).stdout).toBe('connected\n')
      } finally {
        await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
        for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
      }
    })

    it('S8 with network on the same command connects', async () => {
      const root = await setup({ network: true }, workspace)
      const result = await sandboxed(root, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`)
      expect(result).toMatchObject({ exitCode: 0, stdout: 'connected\n' })
      expect(result.enforced.network).toBe(true)
      expect(result.enforced.namespaces).not.toContain('net')
    })

    it('S8 a per-call policy can turn network on for that call only', async () => {
      const root = await setup({ network: false }, workspace)
      const result = await sandboxed(root, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, { network: true })
      expect(result.stdout).toBe('connected\n')
      expect(root.sandboxPolicy.network).toBe(false)
    })
  })
})
