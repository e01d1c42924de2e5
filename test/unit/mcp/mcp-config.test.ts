import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadMcpConfig, McpConfigError, parseMcpConfig } from '../../../src/mcp/mcp-config.ts'
import { mcpToolName } from '../../../src/mcp/mcp-tool-name.ts'

describe('--mcp-config (S9.1 imported tools)', () => {
  it('accepts the usual mcpServers shape, defaults args to [] and resolves cwd against the file', () => {
    const config = parseMcpConfig(
      { mcpServers: { fs: { command: 'npx', args: ['-y', 'x'], env: { A: '1' }, cwd: 'sub', parallel: true, timeoutMs: 500, type: 'stdio' }, bare: { command: 'srv' } } },
      { baseDir: '/base' },
    )
    expect(config.mcpServers).toEqual({
      fs: { command: 'npx', args: ['-y', 'x'], env: { A: '1' }, cwd: '/base/sub', parallel: true, timeoutMs: 500 },
      bare: { command: 'srv', args: [] },
    })
  })

  it('lists every problem with its path, naming the server', () => {
    let error: unknown
    try {
      parseMcpConfig({ mcpServers: { fs: { args: 'nope' }, web: { command: 'x', timeoutMs: -1 } } }, { file: 'cfg.json' })
    } catch (caught) {
      error = caught
    }
    expect(McpConfigError.isInstance(error)).toBe(true)
    const message = (error as Error).message
    expect(message).toContain('cfg.json')
    expect(message).toContain('mcpServers.fs.command: needs a "command"')
    expect(message).toContain('mcpServers.fs.args')
    expect(message).toContain('mcpServers.web.timeoutMs')
  })

  it('an empty server name is said to be one (not "Invalid key in record"), and a name that is no plain word is quoted', () => {
    expect(() => parseMcpConfig({ mcpServers: { '': { command: 'x' }, 'b c': { command: 'x', args: [1] } } })).toThrow(
      /\n  mcpServers\[""\]: a server name must not be empty\n  mcpServers\["b c"\]\.args\.0: /,
    )
  })

  it('reports an unreadable or non-JSON file clearly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-mcp-config-'))
    writeFileSync(join(dir, 'bad.json'), '{ not json')
    expect(() => loadMcpConfig(join(dir, 'bad.json'))).toThrow(/is not valid JSON/)
    expect(() => loadMcpConfig(join(dir, 'missing.json'))).toThrow(/Cannot read the MCP config/)
    expect(() => parseMcpConfig({ servers: {} })).toThrow(/mcpServers/)
  })
})

describe('imported tool names', () => {
  it('are ${server}__${tool}, reduced to the defineTool name rules (S1.4)', () => {
    expect(mcpToolName('fs', 'read_text_file')).toBe('fs__read_text_file')
    expect(mcpToolName('my server', 'get/item')).toBe('my_server__get_item')
    expect(mcpToolName('1st', 'x')).toBe('_1st__x')
    expect(mcpToolName('s', 'y'.repeat(300))).toHaveLength(128)
  })
})
