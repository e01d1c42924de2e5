import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { buildSync } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as mcpImport from '../../../src/mcp/mcp-import.ts'
import { DEFAULT_RESTART_POLICY } from '../../../src/mcp/restart-policy.ts'
import { SupervisedConnection, type RestartClock } from '../../../src/mcp/supervised-connection.ts'
import { createRoot, tick } from '../../helpers/registry.ts'
import { isAlive as alive } from '../../helpers/process-alive.ts'

const dir = mkdtempSync(join(tmpdir(), 'ptc-restart-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
/**
 * test/fixtures/scripted-mcp-server.ts bundled into one file (esbuild, once): this file starts the
 * server 24 times, and each start of the fixture as it is (type stripping, then the SDK's and
 * zod's modules one by one) cost about 0.45 s of CPU, of the bundle about 0.15 s. Same code, same SDK.
 */
const SCRIPTED = join(dir, 'scripted-mcp-server.mjs')
buildSync({ entryPoints: [fileURLToPath(new URL('../../fixtures/scripted-mcp-server.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', target: 'node24', outfile: SCRIPTED, logLevel: 'error' })
const object = { type: 'object', properties: {} }
const TOOLS = ['crash', 'hang', 'quit', 'count', 'hello'].map((name) => ({ name, inputSchema: object }))

/** A scripted server (test/fixtures/scripted-mcp-server.ts) that crashes in `crash`, hangs in `hang`, exits after `quit`, and logs its starts. */
function server(name: string, extra: Record<string, unknown> = {}) {
  const startsFile = join(dir, `${name}.starts`)
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ tools: TOOLS, crashes: ['crash'], hangs: ['hang'], exitsAfter: ['quit'], results: { hello: { content: [{ type: 'text', text: 'hello' }] }, quit: { content: [{ type: 'text', text: 'bye' }] } }, startsFile, ...extra }))
  return { config: { command: process.execPath, args: [SCRIPTED, join(dir, `${name}.json`)], parallel: true }, starts: () => readFileSync(startsFile, 'utf8').split('\n').filter(Boolean) }
}

const NO_BACKOFF = { ...DEFAULT_RESTART_POLICY, maxRestarts: 2, backoffMs: 0, maxBackoffMs: 0 }

describe('an imported MCP server that stops is started again on the next call (S1.4)', { timeout: 60_000 }, () => {
  let root: Context
  const crashy = server('crashy')
  const quitter = server('quitter')
  const flaky = server('flaky', { maxStarts: 1 })
  beforeAll(async () => {
    root = await createRoot()
    await root.plugin(mcpImport, { warn: () => {}, restartPolicy: NO_BACKOFF, mcpServers: { crashy: crashy.config, quitter: quitter.config, flaky: flaky.config } })
  }, 60_000)
  afterAll(() => root.registry.get(mcpImport) && root.registry.delete(mcpImport))

  const call = (name: string) => root.tools.execute({ name, arguments: {} })
  const pidOf = async (server: string) => (JSON.parse((await call(`${server}__count`)).value as string) as { pid: number }).pid

  it('a crash mid-call fails that call and the calls in flight, naming the server and what happened; the next call restarts it and succeeds', async () => {
    const before = await pidOf('crashy')
    const [hung, crashed] = await Promise.all([call('crashy__hang'), call('crashy__crash')])
    expect(crashed.error?.kind).toBe('failed')
    expect(crashed.error?.message).toMatch(/^Tool "crashy__crash" failed: MCP server "crashy" exited while "crash" was running\. The next call restarts it\. Last stderr: scripted server: crashing in crash$/)
    expect(hung.error?.message).toMatch(/MCP server "crashy" exited while "hang" was running\. The next call restarts it\./)
    const after = await call('crashy__count')
    expect(after.isError).toBe(false)
    expect(JSON.parse(after.value as string)).toMatchObject({ calls: 1 })
    expect(JSON.parse(after.value as string).pid).not.toBe(before)
    expect(crashy.starts()).toHaveLength(2)
  })

  it('a server that exits between calls is restarted by the next call', async () => {
    const before = await pidOf('quitter')
    expect((await call('quitter__quit')).value).toBe('bye')
    // The exit comes 20 ms after the answer; wait until the first process is gone.
    while (alive(before)) await tick(20)
    expect((await call('quitter__hello')).value).toBe('hello')
    expect(quitter.starts()).toHaveLength(2)
  })

  it('past the restart limit a crash says so, and calls fail at once saying when the next call restarts it', async () => {
    // crashy was restarted once above; one more is allowed (maxRestarts 2).
    await call('crashy__crash')
    expect((await call('crashy__hello')).value).toBe('hello')
    const crashed = await call('crashy__crash')
    expect(crashed.error?.message).toMatch(/exited while "crash" was running\. It was restarted 2 times in the last minute, the most ptc-runner allows; the first call after \d\d:\d\d:\d\d UTC \(in \d+ s\) restarts it\. Last stderr: /)
    const refused = await call('crashy__hello')
    expect(refused.error?.kind).toBe('failed')
    expect(refused.error?.message).toMatch(
      /MCP server "crashy" is not running, so "hello" could not be called\. It was restarted 2 times in the last minute, the most ptc-runner allows; the first call after \d\d:\d\d:\d\d UTC \(in \d+ s\) restarts it\. Last time it exited\. Last stderr: scripted server: crashing in crash$/,
    )
    expect(crashy.starts()).toHaveLength(3)
  })

  it('a server that fails to start again fails the call with why (its stderr), and the limit then counts the failed starts', async () => {
    await call('flaky__crash')
    const failed = await call('flaky__hello')
    expect(failed.error?.kind).toBe('failed')
    expect(failed.error?.message).toMatch(
      /MCP server "flaky" had stopped \(it exited\) and could not be started again: MCP server "flaky" \(.*\) could not start: .*Last stderr: scripted server: start 2 refused \(maxStarts 1\) The next call restarts it\.$/,
    )
    const again = await call('flaky__hello')
    expect(again.error?.message).toMatch(/could not be started again: .*start 3 refused.* It was restarted 2 times in the last minute/)
    const refused = await call('flaky__hello')
    expect(refused.error?.message).toMatch(/MCP server "flaky" is not running, so "hello" could not be called\. It was restarted 2 times .* Its last restart failed: MCP server "flaky" .*could not start: .*start 3 refused/)
    expect(flaky.starts()).toHaveLength(3)
  })
})

// Concurrent: each test has its own server (its own script and starts file), connection and clock.
describe.concurrent('restart backoff and the limit per minute, on a test clock (S1.4)', { timeout: 60_000 }, () => {
  it('each restart of a minute waits longer (0, 1, 2, 4, 8 s), the sixth is refused, and a minute later the next call restarts it', async ({ expect }) => {
    const { config, starts } = server('looping')
    const waits: number[] = []
    let now = Date.UTC(2026, 11, 1, 20, 0, 0)
    const clock: RestartClock = { now: () => now, sleep: async (ms) => void (waits.push(ms), (now += ms)) }
    const connection = await SupervisedConnection.start('looping', config, { clock })
    const signal = new AbortController().signal
    const messages: string[] = []
    try {
      for (let i = 0; i < 6; i++) {
        await connection.callTool('crash', {}, signal).catch((error: Error) => messages.push(error.message))
        await connection.callTool('hello', {}, signal).catch((error: Error) => messages.push(error.message))
      }
      expect(waits).toEqual([1_000, 2_000, 4_000, 8_000])
      expect(starts()).toHaveLength(6)
      expect(messages.at(-1)).toMatch(/is not running, so "hello" could not be called\. It was restarted 5 times in the last minute, the most ptc-runner allows; the first call after 20:01:00 UTC \(in 45 s\) restarts it\./)
      now += 45_000
      expect((await connection.callTool('hello', {}, signal)).content).toEqual([{ type: 'text', text: 'hello' }])
      expect(starts()).toHaveLength(7)
    } finally {
      await connection.close()
    }
  })

  it('a backoff as long as a call\'s budget (timeoutMs) fails the call at once, saying so, and the first call after it restarts the server', async ({ expect }) => {
    const { config, starts } = server('patient')
    const waits: number[] = []
    let now = Date.UTC(2026, 11, 1, 20, 0, 0)
    const clock: RestartClock = { now: () => now, sleep: async (ms) => void (waits.push(ms), (now += ms)) }
    const connection = await SupervisedConnection.start('patient', { ...config, timeoutMs: 3_000 }, { clock })
    const signal = new AbortController().signal
    try {
      // Crashes restarted after 0, 1 and 2 s; the next would wait 4 s, more than the 3 s budget.
      for (let i = 0; i < 4; i++) await connection.callTool('crash', {}, signal).catch(() => {})
      expect(waits).toEqual([1_000, 2_000])
      await expect(connection.callTool('hello', {}, signal)).rejects.toThrow(/^MCP server "patient" is not running \(it exited\), and its restart waits a backoff of 4 s, longer than a call's budget of 3000 ms \(timeoutMs\), so "hello" was not called\. The first call after 20:00:07 UTC \(in 4 s\) restarts it\.$/)
      expect(starts()).toHaveLength(4)
      now += 4_000
      expect((await connection.callTool('hello', {}, signal)).content).toEqual([{ type: 'text', text: 'hello' }])
      expect(waits).toEqual([1_000, 2_000])
      expect(starts()).toHaveLength(5)
    } finally {
      await connection.close()
    }
  })

  it('a call aborted while the server restarts rejects with its reason; the restart goes on for the next call', async ({ expect }) => {
    const { config, starts } = server('aborted')
    const connection = await SupervisedConnection.start('aborted', config)
    try {
      await connection.callTool('crash', {}, new AbortController().signal).catch(() => {})
      const stop = new AbortController()
      const pending = connection.callTool('hello', {}, stop.signal)
      stop.abort(new Error('caller gave up'))
      await expect(pending).rejects.toThrow('caller gave up')
      expect((await connection.callTool('hello', {}, new AbortController().signal)).content).toEqual([{ type: 'text', text: 'hello' }])
      expect(starts()).toHaveLength(2)
    } finally {
      await connection.close()
    }
  })

  it('closing during a restart\'s backoff ends the waiting call and starts no process', async ({ expect }) => {
    const { config, starts } = server('closing')
    const clock: RestartClock = { now: () => Date.now(), sleep: (_ms, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))) }
    const connection = await SupervisedConnection.start('closing', config, { clock })
    const signal = new AbortController().signal
    await connection.callTool('crash', {}, signal).catch(() => {})
    await connection.callTool('hello', {}, signal)
    await connection.callTool('crash', {}, signal).catch(() => {})
    // The second restart of the minute waits 1 s on this clock's never-ending sleep.
    const waiting = connection.callTool('hello', {}, signal)
    await connection.close()
    await expect(waiting).rejects.toThrow('MCP server "closing" is not restarted: ptc-runner is closing.')
    expect(starts()).toHaveLength(2)
  })
})
