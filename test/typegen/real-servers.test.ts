/**
 * The declarations of two official MCP servers' real tool lists (S9.1; the servers of `npm run
 * bench -- declarations`): both forms are valid TypeScript on their own, and the host's checker
 * accepts a real script against them and rejects a misspelt key or a value outside an enum.
 */
import { mkdtempSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/host/create-host.ts'
import { check, TOOL_CALL_ERROR } from './check-script.ts'

const resolvePackage = createRequire(import.meta.url).resolve

describe('declarations of real MCP servers (filesystem, git)', { timeout: 60_000 }, () => {
  let host: Host
  beforeAll(async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-real-servers-')))
    host = await createHost({
      workspace,
      journal: false,
      ptc: { isolation: 'inline' },
      mcpConfig: {
        mcpServers: {
          fs: { command: process.execPath, args: [resolvePackage('@modelcontextprotocol/server-filesystem/dist/index.js'), workspace] },
          git: {
            command: process.execPath,
            args: [resolvePackage('@cyanheads/git-mcp-server/index.js')],
            env: { MCP_TRANSPORT_TYPE: 'stdio', MCP_LOG_LEVEL: 'error', PATH: process.env.PATH ?? '' },
          },
        },
      },
    })
  }, 60_000)
  afterAll(() => host?.dispose())

  it('S9.1 the file form and the embedded form are valid TypeScript with no diagnostics', async () => {
    const file = await host.ctx.ptc.declarations()
    const embedded = await host.ctx.ptc.declarations({ embedded: true })
    expect(embedded).toContain('git__git_log(args: {')
    expect(check(file, 'export {}\n')).toEqual([])
    expect(check(embedded + TOOL_CALL_ERROR, 'export {}\n')).toEqual([])
  })

  it('S9.1 a real script checks clean; a misspelt key and a value outside an enum are type errors', async () => {
    const good = `
const log = await tools.git__git_log({ maxCount: 3, oneline: true })
const status = await tools.git__git_status({})
const text = await tools.fs__read_text_file({ path: 'a.txt', head: 2 })
const sizes = await tools.fs__list_directory_with_sizes({ path: '.', sortBy: 'size' })
return { commits: log.commits.length, clean: status.isClean, text: text.content, sizes: sizes.content }
`
    expect(await host.ctx.ptc.check(good)).toEqual([])
    const bad = `
await tools.git__git_log({ maxcount: 3 })
await tools.fs__list_directory_with_sizes({ path: '.', sortBy: 'date' })
`
    const diagnostics = (await host.ctx.ptc.check(bad)).filter((diagnostic) => diagnostic.category === 'error')
    expect(diagnostics.map((diagnostic) => diagnostic.line)).toEqual([2, 3])
    expect(diagnostics[0]!.message).toMatch(/'maxcount' does not exist/)
    expect(diagnostics[1]!.message).toMatch(/'"date"' is not assignable/)
  })
})
