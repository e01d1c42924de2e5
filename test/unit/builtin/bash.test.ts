import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { contentText, type WorkspaceFixture, workspaceFixture } from './workspace-fixture.ts'

let ws: WorkspaceFixture
beforeEach(async () => {
  ws = await workspaceFixture()
})
afterEach(() => ws.cleanup())

/** Host pids of `sleep <seconds>` processes running in `cwd`, after giving a kill time to land. */
async function leftovers(seconds: string, cwd: string): Promise<string[]> {
  const find = () =>
    fs.readdirSync('/proc').filter((pid) => {
      if (!/^\d+$/.test(pid)) return false
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\u0000${seconds}\u0000` && fs.readlinkSync(`/proc/${pid}/cwd`) === cwd
      } catch {
        return false
      }
    })
  for (let i = 0; i < 40 && find().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  return find()
}

describe('bash', () => {
  it('S9.6 returns {exitCode, signal, stdout, stderr, truncated} and writes inside the workspace', async () => {
    const result = await ws.call('bash', { command: 'echo hi > made.txt; cat made.txt; echo warn >&2' })
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ exitCode: 0, signal: null, stdout: 'hi\n', stderr: 'warn\n', truncated: false, timedOut: false })
    expect(fs.readFileSync(ws.file('made.txt'), 'utf8')).toBe('hi\n')
    expect(contentText(result)).toBe('Exit code 0.\nstdout:\nhi\n\nstderr:\nwarn\n')
  })

  it('S8 a command over 100,000 bytes of UTF-8 (ASCII or multi-byte) is an argument error saying what to do, not spawn E2BIG', async () => {
    for (const command of [`echo ${'x'.repeat(1_000_000)}`, `echo ${'中'.repeat(50_000)}`]) {
      const refused = await ws.call('bash', { command })
      expect(refused.error?.kind).toBe('invalid-arguments')
      expect(refused.error?.message).toMatch(/A command line takes at most 100000 bytes of UTF-8; write a longer script to a file with write_file and run that/)
    }
  })

  it('S6.5 a non-zero exit is a value, not an error', async () => {
    const result = await ws.call('bash', { command: 'echo nope >&2; exit 7' })
    expect(result.isError).toBe(false)
    expect(result.value).toMatchObject({ exitCode: 7, stderr: 'nope\n' })
  })

  it('S11.1 terminal card, pending and completed', async () => {
    const tool = ws.root.tools.get('bash')!
    expect(tool.presentCall({ command: 'ls', cwd: 'src' })).toEqual({ card: 'terminal', phase: 'pending', command: 'ls', cwd: 'src' })
    const result = await ws.call('bash', { command: 'echo out; echo err >&2; exit 2' })
    expect(tool.presentResult(result.arguments, result)).toEqual({ card: 'terminal', phase: 'completed', command: 'echo out; echo err >&2; exit 2', output: 'out\nerr\n', exitCode: 2, signal: null })
  })

  it('S8 runs in cwd inside the workspace; a cwd outside is denied', async () => {
    fs.mkdirSync(ws.file('sub'))
    expect((await ws.call('bash', { command: 'pwd', cwd: 'sub' })).value).toMatchObject({ stdout: `${ws.file('sub')}\n` })
    expect((await ws.call('bash', { command: 'pwd', cwd: ws.outside })).error?.message).toMatch(/outside the workspace roots/)
  })

  it('S8 a command cannot write outside the workspace: the file is not written', async () => {
    const target = path.join(ws.outside, 'escaped.txt')
    const result = await ws.call('bash', { command: `echo leak > ${target}` })
    expect(result.value).toMatchObject({ exitCode: 1 })
    // The outside dir is under /var/tmp, a private tmpfs in the sandbox: it is not even there.
    expect((result.value as { stderr: string }).stderr).toMatch(/No such file or directory|Read-only file system/)
    expect(fs.existsSync(target)).toBe(false)
    const hostTarget = `/etc/ptc-leak-${process.pid}`
    const readOnly = await ws.call('bash', { command: `echo leak > ${hostTarget}` })
    expect((readOnly.value as { stderr: string }).stderr).toMatch(/Read-only file system/)
    expect(fs.existsSync(hostTarget)).toBe(false)
  })

  it('S8 a command cannot escape through a symlink in the workspace that points outside', async () => {
    fs.symlinkSync(ws.outside, ws.file('out'))
    const result = await ws.call('bash', { command: 'echo leak > out/escaped.txt' })
    expect((result.value as { exitCode: number }).exitCode).not.toBe(0)
    expect(fs.existsSync(path.join(ws.outside, 'escaped.txt'))).toBe(false)
  })

  it('S8 read-only preset: a command cannot write even inside the workspace', async () => {
    ws.root.permissionPresets.switch('read-only')
    const result = await ws.call('bash', { command: 'touch inside.txt' })
    expect((result.value as { exitCode: number }).exitCode).not.toBe(0)
    expect(fs.existsSync(ws.file('inside.txt'))).toBe(false)
  })

  it('S1.3 a command that ignores SIGTERM is still killed at its deadline (sandboxed: the whole sandbox goes)', async () => {
    const started = performance.now()
    const result = await ws.call('bash', { command: `trap '' TERM; (trap '' TERM; exec sleep 61) & sleep 61`, timeoutMs: 300 })
    // Ended before the command would have ended by itself.
    expect(performance.now() - started).toBeLessThan(61_000)
    expect(result.value).toMatchObject({ timedOut: true, exitCode: null })
    expect(contentText(result)).toMatch(/Timed out and was killed/)
    expect(await leftovers('61', ws.workspace)).toEqual([])
  }, 120_000)

  it('S1.3 unsandboxed (danger-full-access), a SIGTERM-ignoring group gets SIGKILL after the grace', async () => {
    ws.root.permissionPresets.switch('danger-full-access')
    const started = performance.now()
    const result = await ws.call('bash', { command: `trap '' TERM; (trap '' TERM; exec sleep 62) & sleep 62`, timeoutMs: 300 })
    const elapsed = performance.now() - started
    expect(result.value).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' })
    expect(elapsed).toBeGreaterThanOrEqual(2000) // the SIGTERM grace
    expect(elapsed).toBeLessThan(62_000) // before the command would have ended by itself
    expect(await leftovers('62', ws.workspace)).toEqual([])
  }, 120_000)

  it('S1.3 aborting exec.signal kills the process group and the call is cancelled', async () => {
    const stop = new AbortController()
    const pending = ws.call('bash', { command: 'sleep 63 & echo $! > child.pid; wait' }, { agent: 'agent-1', signal: stop.signal })
    // Abort once the child runs, however long a loaded machine takes to start it (the test's timeout bounds the wait).
    while (!fs.existsSync(ws.file('child.pid'))) await new Promise((resolve) => setTimeout(resolve, 20))
    stop.abort()
    const result = await pending
    expect(result.error?.kind).toBe('cancelled')
    expect(await leftovers('63', ws.workspace)).toEqual([])
  }, 60_000)

  describe('network', () => {
    let server: net.Server
    let port: number
    beforeAll(async () => {
      server = net.createServer((socket) => socket.end())
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as net.AddressInfo).port
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`

    it('S8 a command cannot reach the network by default', async () => {
      const result = await ws.call('bash', { command: connect() })
      expect(result.value).toMatchObject({ stdout: '' })
      expect((result.value as { exitCode: number }).exitCode).not.toBe(0)
    })

    it('S8.2 asking for network under workspace-write is an ask; headless it is denied', async () => {
      const result = await ws.call('bash', { command: connect(), network: true })
      expect(result.error).toMatchObject({ kind: 'denied' })
      expect(result.error?.message).toMatch(/needs approval.*no approval responder answered/)
    })

    it('S8.1 an approved network ask connects for that call only', async () => {
      let asked = 0
      ws.root.approval.respond(() => (asked++, 'allowed-once'))
      expect((await ws.call('bash', { command: connect(), network: true })).value).toMatchObject({ exitCode: 0, stdout: 'connected\n' })
      expect((await ws.call('bash', { command: connect() })).value).toMatchObject({ stdout: '' })
      expect(asked).toBe(1)
      expect(ws.root.sandboxPolicy.network).toBe(false)
    })
  })
})
