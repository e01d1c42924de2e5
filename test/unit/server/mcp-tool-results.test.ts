import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { PACKAGE_VERSION } from '../../../src/package-version.ts'
import { connectSession, type SessionClient } from '../../helpers/mcp-session-client.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))

describe('what an MCP client reads of ptc serve: isError, annotations, version, session id (S9.4)', { timeout: 30_000 }, () => {
  let host: Host
  let open: SessionClient
  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-results-')), journal: false, toolModules: [TOOLS] })
    open = await connectSession(host, { exposeTools: true })
  }, 60_000)
  afterAll(async () => {
    await open?.close()
    await host?.dispose()
  })

  const run = (code: string) => open.client.callTool({ name: 'run_code', arguments: { code } })

  it('S9.4 a run that ends ok is isError false', async () => {
    const result = await run('return 1')
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toMatchObject({ status: 'ok', value: 1 })
  })

  it('S9.3 a script that throws is isError true, with the full canonical value as structuredContent and the rendered text', async () => {
    // The SDK client validates structuredContent against run_code's outputSchema: this passing means it is valid.
    const result = await run('throw new Error("no luck")')
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ status: 'error', error: { name: 'Error', message: 'no luck' }, logs: [], toolCalls: 0 })
    expect(JSON.stringify(result.content)).toContain('status: error')
    expect(JSON.stringify(result.content)).toContain('no luck')
  })

  it('S9.1 a script that fails type-checking is isError true, its diagnostics in structuredContent', async () => {
    const result = await run('const n: number = "x"; return n')
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ status: 'type-error', diagnostics: [expect.objectContaining({ category: 'error' })] })
  })

  it('S2 exposed tools carry their title and truthful behaviour hints', async () => {
    const { tools } = await open.client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('read_file')).toMatchObject({ title: 'Read a file', annotations: { readOnlyHint: true, openWorldHint: false } })
    for (const name of ['glob', 'list_dir', 'search', 'job_list', 'job_read']) expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true)
    expect(byName.get('bash')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true })
    expect(byName.get('write_file')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true })
    expect(byName.get('edit_file')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.get('job_kill')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  it('S9.4 run_code has a title, and hints derived from the tools a script can call (here bash: destructive, open-world)', async () => {
    const { tools } = await open.client.listTools()
    const runCode = tools.find((tool) => tool.name === 'run_code')!
    expect(runCode.title).toBe('Run TypeScript that calls tools')
    expect(runCode.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
  })

  it('the server reports the version written in package.json', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
    expect(PACKAGE_VERSION).toBe(manifest.version)
    expect(open.client.getServerVersion()).toMatchObject({ name: 'ptc-runner', version: manifest.version })
  })

  it('the journal file is named by the MCP session id, and every record carries it', async () => {
    const own = await connectSession(host, { exposeTools: true }, 'test-session-42')
    try {
      expect(own.session.sessionId).toBe('test-session-42')
      expect(own.session.agent).toBe('mcp-test-session-42')
      await own.client.callTool({ name: 'echo', arguments: { text: 'journaled' } })
      const folder = join(host.workspace, 'journal')
      const file = readdirSync(folder).find((name) => name.endsWith('-mcp-test-session-42.jsonl'))
      expect(file).toBeDefined()
      const records = readFileSync(join(folder, file!), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { session?: string; type: string })
      expect(records.map((record) => record.type)).toEqual(['tool/call', 'tool/result'])
      for (const record of records) expect(record.session).toBe('test-session-42')
    } finally {
      await own.close()
    }
  })
})
