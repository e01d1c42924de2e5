import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAKE_SERVER, stdioClient, type RunValue } from './serve-helpers.ts'

const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')

describe('ptc serve --mcp-config: imported MCP tools in run_code (S9.1–S9.3)', { timeout: 30_000 }, () => {
  let client: Client
  let root: string
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-serve-import-')))
    mkdirSync(join(root, 'notes'))
    writeFileSync(join(root, 'notes', 'a.txt'), 'hello from a\n')
    writeFileSync(join(root, 'notes', 'b.md'), '# b\n')
    const config = join(root, 'mcp.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fs: { command: process.execPath, args: [FILESYSTEM_SERVER, root] },
          crashy: { command: process.execPath, args: [FAKE_SERVER] },
          slow: { command: process.execPath, args: [FAKE_SERVER], timeoutMs: 500 },
        },
      }),
    )
    client = await stdioClient(['--workspace', root, '--mcp-config', config, '--checkers', '1'])
  }, 60_000)
  afterAll(() => client?.close())

  const run = async (code: string) => (await client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 25_000 })).structuredContent as RunValue

  it('the imported tools are declared for scripts as server__tool', async () => {
    const { tools } = await client.listTools()
    const description = tools.find((tool) => tool.name === 'run_code')!.description!
    for (const name of ['fs__list_directory', 'fs__read_text_file', 'fs__search_files', 'crashy__crash', 'slow__hang']) expect(description).toContain(`${name}(args: `)
  })

  it('a script lists, reads and searches through the filesystem server, next to the built-in tools', async () => {
    const value = await run(`
      const root = ${JSON.stringify(root)}
      const listing = await tools.fs__list_directory({ path: root + '/notes' })
      const text = await tools.fs__read_text_file({ path: root + '/notes/a.txt' })
      const found = await tools.fs__search_files({ path: root, pattern: '**/*.md' })
      const builtin = await tools.read_file({ path: 'notes/a.txt' })
      return { listing, text, found, builtin }
    `)
    expect(value.status).toBe('ok')
    const result = value.value as Record<string, unknown>
    expect(JSON.stringify(result.listing)).toMatch(/a\.txt.*b\.md/)
    expect(JSON.stringify(result.text)).toContain('hello from a')
    expect(JSON.stringify(result.found)).toContain('b.md')
    expect(JSON.stringify(result.builtin)).toContain('hello from a')
  })

  it('a path outside the server root fails as a ToolCallError the script can catch', async () => {
    const value = await run(`
      try {
        await tools.fs__read_text_file({ path: '/etc/hostname' })
        return 'read it'
      } catch (error) {
        if (!(error instanceof ToolCallError)) throw error
        return { name: error.name, toolName: error.toolName, message: error.message }
      }
    `)
    expect(value.value).toMatchObject({ name: 'ToolCallError', toolName: 'fs__read_text_file' })
    expect((value.value as { message: string }).message).toMatch(/outside allowed directories/)
  })

  it('a server that crashes or hangs fails those calls with clear messages, the run finishes, and the next call restarts the crashed one', async () => {
    const value = await run(`
      const outcomes: string[] = []
      for (const call of [() => tools.crashy__crash({}), () => tools.slow__hang({}), () => tools.crashy__plain({})]) {
        try { outcomes.push(JSON.stringify(await call())) } catch (error) { outcomes.push(error instanceof ToolCallError ? error.message : 'not a ToolCallError') }
      }
      return outcomes
    `)
    // Outcome, not time: the hang ended at its own 500 ms timeout (the message says so), the crash
    // was reported, and the next call was answered.
    const [crashed, hung, after] = value.value as string[]
    expect(crashed).toMatch(/MCP server "crashy" exited while "crash" was running\. The next call restarts it\./)
    expect(hung).toMatch(/slow__hang.*500 ms/)
    expect(after).toBe(JSON.stringify('line one\nline two'))
  })
})
