import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Context, Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as mcpImport from '../../../src/mcp/mcp-import.ts'
import { CLOSE_GRACE_MS, McpConnection, McpConnectionError } from '../../../src/mcp/mcp-connection.ts'
import { isStartupError } from '../../../src/server/serve-command.ts'
import * as timeoutPolicy from '../../../src/policy/timeout-policy.ts'
import { isAlive, isRunning } from '../../helpers/process-alive.ts'
import { createRoot } from '../../helpers/registry.ts'

const run = promisify(execFile)

const FAKE = fileURLToPath(new URL('../../fixtures/fake-mcp-server.ts', import.meta.url))
const fake = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FAKE], ...extra })

describe('tools imported from an MCP server (S1.4, S2.2, S9.1–S9.3)', { timeout: 30_000 }, () => {
  let root: Context
  let fiber: Fiber
  beforeAll(async () => {
    root = await createRoot()
    await root.plugin(timeoutPolicy)
    fiber = root.plugin(mcpImport, {
      mcpServers: { fake: fake(), quick: fake({ timeoutMs: 400, parallel: true }), crashy: fake(), big: fake() },
      warn: () => {},
    })
    await fiber
  }, 60_000)
  afterAll(() => root.registry.get(mcpImport) && fiber.dispose())

  it('registers every tool as server__tool with its JSON Schemas for typegen', () => {
    const names = root.tools.list().map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['fake__greet', 'fake__plain', 'fake__fail', 'fake__crash', 'fake__hang', 'quick__hang', 'crashy__crash']))
    const greet = root.tools.get('fake__greet')!
    expect(greet.jsonSchemas?.parameters).toMatchObject({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] })
    expect(greet.jsonSchemas?.output).toMatchObject({ type: 'object', properties: { greeting: { type: 'string' } } })
    expect(root.tools.schemas().find((schema) => schema.name === 'fake__greet')?.parameters).toEqual(greet.jsonSchemas?.parameters)
    expect(root.tools.get('fake__plain')!.jsonSchemas?.output).toEqual({ type: 'string' })
  })

  it('structuredContent is the canonical value, the server content is the model content', async () => {
    const result = await root.tools.execute({ name: 'fake__greet', arguments: { name: 'ada' } })
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ greeting: 'hello ada', length: 9 })
    expect(result.content).toEqual([{ type: 'text', text: 'hello ada' }])
  })

  it('without structuredContent the value is the text content joined with newlines', async () => {
    const result = await root.tools.execute({ name: 'fake__plain', arguments: {} })
    expect(result.value).toBe('line one\nline two')
  })

  it('arguments are validated against inputSchema before the server is called', async () => {
    const result = await root.tools.execute({ name: 'fake__greet', arguments: { name: 7 } })
    expect(result.error?.kind).toBe('invalid-arguments')
    expect(result.error?.message).toMatch(/must be string/)
  })

  it('isError becomes a failed call carrying the server message', async () => {
    const result = await root.tools.execute({ name: 'fake__fail', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.error).toMatchObject({ kind: 'failed', message: 'Tool "fake__fail" failed: the fake tool failed on purpose' })
  })

  it('imported tools are exclusive unless the server is configured parallel (S2.2)', () => {
    expect(root.tools.executionMode({ name: 'fake__plain', arguments: {} })).toEqual({ kind: 'exclusive' })
    expect(root.tools.executionMode({ name: 'quick__plain', arguments: {} })).toEqual({ kind: 'parallel' })
  })

  it('a server that hangs gives a timeout result within its timeoutMs, not a hung call', async () => {
    const result = await root.tools.execute({ name: 'quick__hang', arguments: {} })
    expect(result.error?.kind).toBe('timeout')
    expect(result.error?.message).toMatch(/quick__hang.*400 ms/)
    // The server is still usable after a timed-out call.
    expect((await root.tools.execute({ name: 'quick__greet', arguments: { name: 'b' } })).isError).toBe(false)
  })

  it('a server that crashes mid-call fails that call with a clear message, and the next call restarts it', async () => {
    const result = await root.tools.execute({ name: 'crashy__crash', arguments: {} })
    expect(result.error?.kind).toBe('failed')
    expect(result.error?.message).toMatch(/MCP server "crashy" exited while "crash" was running\. The next call restarts it\. Last stderr: fake server: crashing now/)
    const later = await root.tools.execute({ name: 'crashy__greet', arguments: { name: 'x' } })
    expect(later).toMatchObject({ isError: false, value: { greeting: 'hello x' } })
  })

  it('a result over the stdio message limit says so, and the next call restarts the dropped server', async () => {
    const result = await root.tools.execute({ name: 'big__huge', arguments: {} })
    expect(result.error?.kind).toBe('failed')
    expect(result.error?.message).toMatch(/MCP server "big" closed its connection while "huge" was running: it sent a message over the 10 MiB MCP stdio message limit.* The next call restarts it\./)
    const later = await root.tools.execute({ name: 'big__greet', arguments: { name: 'x' } })
    expect(later).toMatchObject({ isError: false, value: { greeting: 'hello x' } })
  })

  it('a JSON-RPC error answer is the tool failing with the server\'s words, also with the codes the SDK uses for its own close (-32000) and timeout (-32001)', async () => {
    for (const code of [-32000, -32001, -32603]) {
      const result = await root.tools.execute({ name: 'fake__server_error', arguments: { code } })
      expect(result.error?.kind).toBe('failed')
      expect(result.error?.message).toContain('custom server error')
      expect(result.error?.message).not.toMatch(/exited|did not answer/)
    }
    // The server is still the same one, answering.
    expect(await root.tools.execute({ name: 'fake__greet', arguments: { name: 'y' } })).toMatchObject({ isError: false, value: { greeting: 'hello y' } })
  })

  it('an answer that is not a valid JSON-RPC response fails the call at once, saying so (it waited out the call\'s 60 s budget)', async () => {
    const result = await root.tools.execute({ name: 'fake__null_result', arguments: {} })
    expect(result.error?.kind).toBe('failed')
    expect(result.error?.message).toMatch(/the answer is not a valid JSON-RPC response .*"result":null/)
  })

  it('the caller\'s cancellation aborts a pending call (S1.3)', async () => {
    const stop = new AbortController()
    const pending = root.tools.execute({ name: 'fake__hang', arguments: {} }, { signal: stop.signal })
    setTimeout(() => stop.abort(), 50)
    expect((await pending).error?.kind).toBe('cancelled')
  })

  it('disposing the plugin unregisters the tools and stops the servers', async () => {
    const extra = root.plugin(mcpImport, { mcpServers: { temp: fake() } })
    await extra
    expect(root.tools.get('temp__greet')).toBeDefined()
    await extra.dispose()
    expect(root.tools.get('temp__greet')).toBeUndefined()
  })

  // Each of these starts its own server process and mostly waits for it (a start, a refusal, the
  // 1 s left of a start-up budget, an orphan's end): side by side, not one after another.
  describe.concurrent('start-up failures and exits', () => {
    it('a server that cannot start fails the plugin with its stderr', async ({ expect }) => {
      const broken = root.plugin(mcpImport, { mcpServers: { broken: { command: process.execPath, args: [FAKE, '--crash-on-start'] } } })
      const error = await Promise.resolve(broken).then(() => undefined, (caught: unknown) => caught)
      expect(McpConnectionError.isInstance(error)).toBe(true)
      expect((error as Error).message).toMatch(/MCP server "broken" .* could not start: .*Last stderr: fake server: refusing to start/)
      expect(root.tools.get('broken__greet')).toBeUndefined()
    })

    it('a server whose tool listing fails fails the plugin with the reason and its stderr, and none of its tools is registered', async ({ expect }) => {
      const failing = root.plugin(mcpImport, { mcpServers: { listless: { command: process.execPath, args: [FAKE, '--list-error'] } } })
      const error = await Promise.resolve(failing).then(() => undefined, (caught: unknown) => caught)
      expect(McpConnectionError.isInstance(error)).toBe(true)
      expect(isStartupError(error)).toBe(true)
      expect((error as Error).message).toMatch(/MCP server "listless" .* could not list its tools: .*the tool catalogue is offline.*Last stderr: fake server: failing tools\/list/)
      expect(root.tools.get('listless__greet')).toBeUndefined()
    })

    it('a server that answers the handshake but never lists its tools fails start-up once the start-up budget runs out, naming it with its stderr', async ({ expect }) => {
      // The handshake gets a budget a loaded machine meets; what is left of it for the listing is
      // then cut to 1 s, so the test does not wait out a whole budget (it waited 8 s).
      const connection = await McpConnection.start('silent', { command: process.execPath, args: [FAKE, '--no-list'] }, { startTimeoutMs: 30_000 })
      try {
        connection._startDeadline = performance.now() + 1_000
        const error = await connection.listTools().then(() => undefined, (caught: unknown) => caught)
        expect(McpConnectionError.isInstance(error)).toBe(true)
        expect(isStartupError(error)).toBe(true)
        expect((error as Error).message).toMatch(/MCP server "silent" .* did not list its tools within the start-up time\..*Last stderr: fake server: ignoring tools\/list/)
      } finally {
        await connection.close()
      }
    })

    it('a server that ignores the end of its stdin is stopped when the process that started it exits before closing it', async ({ expect }) => {
      const source = `
        import { McpConnection } from ${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../../../src/mcp/mcp-connection.ts', import.meta.url))).href)}
        const connection = await McpConnection.start('stubborn', { command: process.execPath, args: [${JSON.stringify(FAKE)}, '--ignore-eof'] })
        process.stdout.write(String(connection._transport.pid))
        process.exit(0)`
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source])
      const pid = Number(stdout)
      expect(pid).toBeGreaterThan(0)
      // Ended, not reaped: orphaned by the exit, the server is reaped by init, which took 1.2 s and more.
      for (let waited = 0; isRunning(pid) && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(isRunning(pid)).toBe(false)
    })
  })

  it("close() gives a server that ignores the end of its stdin SIGTERM after CLOSE_GRACE_MS, not after the SDK's 2 s", async () => {
    const connection = await McpConnection.start('stubborn', { command: process.execPath, args: [FAKE, '--ignore-eof'] })
    const pid = connection._transport.pid!
    // Only the timers are fake: the clock moves by the grace alone, the server's exit is real.
    // Without ptc's own signal, close() waits for the SDK's 2 s timer, which never comes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const closed = connection.close()
      await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS)
      await closed
      expect(isAlive(pid)).toBe(false)
    } finally {
      vi.useRealTimers()
    }
  }, 15_000)
})
