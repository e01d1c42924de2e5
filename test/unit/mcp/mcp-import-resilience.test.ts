import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as mcpImport from '../../../src/mcp/mcp-import.ts'
import { McpConnection } from '../../../src/mcp/mcp-connection.ts'
import type { McpServerConfig } from '../../../src/mcp/mcp-config.ts'
import { generateDeclarations } from '../../../typegen/index.ts'
import { createRoot } from '../../helpers/registry.ts'

const SCRIPTED = fileURLToPath(new URL('../../fixtures/scripted-mcp-server.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ptc-scripted-'))
/** A scripted server (see test/fixtures/scripted-mcp-server.ts) from its tools and results. */
function scripted(file: string, script: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  writeFileSync(join(dir, file), JSON.stringify(script))
  return { command: process.execPath, args: [SCRIPTED, join(dir, file)], ...extra }
}
const text = (t: string) => ({ content: [{ type: 'text', text: t }] })
const object = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties })

describe('importing real-world MCP tool lists and results (S1.4, S9.1–S9.3)', { timeout: 60_000 }, () => {
  let root: Context
  const warnings: string[] = []
  beforeAll(async () => {
    root = await createRoot()
    await root.plugin(mcpImport, {
      warn: (message: string) => void warnings.push(message),
      mcpServers: {
        a: scripted('a.json', {
          tools: [
            { name: 'ok', inputSchema: object() },
            { name: 'no_type', inputSchema: { properties: {} } },
            { name: 'root_any_of', inputSchema: { anyOf: [object(), object()] } },
            { name: 'get item', inputSchema: object() },
            { name: 'get_item', inputSchema: object() },
            { name: 'b__c', inputSchema: object() },
            { name: 'structured', inputSchema: object(), outputSchema: object({ n: { type: 'number' } }) },
            { name: 'text_json', inputSchema: object(), outputSchema: object({ n: { type: 'number' } }) },
            { name: 'text_only', inputSchema: object(), outputSchema: object({ n: { type: 'number' } }) },
            { name: 'quota', inputSchema: object(), outputSchema: object({ n: { type: 'number' } }) },
            { name: 'hidden', inputSchema: object() },
            { name: 'picture', inputSchema: object() },
            null,
            ...Array.from({ length: 3 }, () => ({ name: 'twice', inputSchema: object() })),
            { name: '', inputSchema: object() },
            { name: 'huge_enum', inputSchema: object({ v: { type: 'string', enum: Array.from({ length: 20_000 }, (_, i) => `value-${i}`) } }) },
          ],
          results: {
            ok: text('fine'),
            'get item': text('spaced'),
            structured: { ...text('n is 1'), structuredContent: { n: 1 } },
            text_json: text('{"n": 2}'),
            text_only: text('not json'),
            picture: { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, { type: 'text', text: 'a chart' }] },
            quota: { ...text('quota exceeded for project p1'), structuredContent: { wrong: true }, isError: true },
          },
        }, { exclude: ['hidden'] }),
        a__b: scripted('ab.json', { tools: [{ name: 'c', inputSchema: object() }], results: { c: text('from a__b') } }),
        r: scripted('r.json', { tools: [{ name: 'x y', inputSchema: object() }, { name: 'x_y', inputSchema: object() }], results: { 'x y': text('renamed'), x_y: text('kept') } }, { rename: { 'x y': 'x_y_spaced' } }),
      },
    })
  }, 60_000)
  afterAll(() => root.registry.get(mcpImport) && root.registry.delete(mcpImport))

  it('a malformed tool is left out with one warning naming server, tool and why; the others are registered', () => {
    expect(root.tools.get('a__ok')).toBeDefined()
    expect(root.tools.get('a__no_type')).toBeUndefined()
    expect(root.tools.get('a__root_any_of')).toBeUndefined()
    expect(warnings).toContainEqual('MCP server "a": tool "no_type" is left out: inputSchema has no "type"; MCP requires "type": "object".')
    expect(warnings).toContainEqual('MCP server "a": tool "root_any_of" is left out: inputSchema has no "type" (a root anyOf); MCP requires "type": "object".')
  })

  it('a name the server lists more than once is imported once, with one warning saying so (not one per copy)', () => {
    expect(root.tools.get('a__twice')).toBeDefined()
    expect(warnings.filter((w) => w.includes('"twice"'))).toEqual(['MCP server "a": it lists tool "twice" 3 times; only the first is imported (a call by that name could not say which is meant).'])
  })

  it('an entry of the tool list that is no object is left out saying so', () => {
    expect(warnings).toContainEqual('MCP server "a": tool "(no name)" is left out: the entry is null, not a tool object.')
  })

  it('a tool with an empty name, or a schema over 128 KiB of JSON, is left out saying why (no "a__" tool, no ajv compile of it)', () => {
    expect(root.tools.get('a__')).toBeUndefined()
    expect(root.tools.get('a__huge_enum')).toBeUndefined()
    expect(warnings).toContainEqual('MCP server "a": tool "" is left out: its name is empty; an MCP tool needs a name to be called by.')
    expect(warnings).toContainEqual('MCP server "a": tool "huge_enum" is left out: inputSchema is 263 KiB of JSON, over the 128 KiB an imported tool\'s schema may take (its declaration would fill a model\'s context).')
  })

  it('names that clean to the same name: the later tool is left out with a warning naming both and the config fix', () => {
    expect(root.tools.get('a__get_item')).toBeDefined()
    expect(warnings.find((w) => w.includes('"get_item" is left out'))).toMatch(/already taken by tool "get item" of server "a".*"rename": \{"get_item": "<new name>"\}/)
    // Server a's b__c and server a__b's c both clean to a__b__c.
    expect(warnings.find((w) => w.includes('MCP server "a__b": tool "c" is left out'))).toMatch(/already taken by tool "b__c" of server "a"/)
  })

  it('rename resolves a collision and exclude leaves a tool out', async () => {
    expect((await root.tools.execute({ name: 'r__x_y_spaced', arguments: {} })).value).toBe('renamed')
    expect((await root.tools.execute({ name: 'r__x_y', arguments: {} })).value).toBe('kept')
    expect(root.tools.get('a__hidden')).toBeUndefined()
  })

  it('S9.1 a tool without outputSchema is declared string, and its value is the text', async () => {
    expect((await root.tools.execute({ name: 'a__ok', arguments: {} })).value).toBe('fine')
    const tool = root.tools.get('a__ok')!
    const declarations = await generateDeclarations([{ name: tool.name, description: tool.description, parameters: tool.parameters, output: tool.output.schema, parametersJsonSchema: tool.jsonSchemas!.parameters!, outputJsonSchema: tool.jsonSchemas!.output! }])
    expect(declarations).toMatch(/a__ok: string/)
  })

  it('S9.1 an image in a result is one line of the value saying it was left out, and stays in the model-facing content', async () => {
    const result = await root.tools.execute({ name: 'a__picture', arguments: {} })
    expect(result.value).toBe("[image content (image/png) left out: code gets a tool's text; a direct call's content carries it]\na chart")
    expect(result.content).toEqual([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, { type: 'text', text: 'a chart' }])
  })

  it('S9.3 a failed result carries the server\'s own text, whatever its structuredContent', async () => {
    const result = await root.tools.execute({ name: 'a__quota', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.error?.message).toContain('quota exceeded for project p1')
  })

  it('a text-only answer to a tool with an outputSchema: its JSON when that validates, else its text, with a warning', async () => {
    expect((await root.tools.execute({ name: 'a__structured', arguments: {} })).value).toEqual({ n: 1 })
    const json = await root.tools.execute({ name: 'a__text_json', arguments: {} })
    expect(json).toMatchObject({ isError: false, value: { n: 2 } })
    const plain = await root.tools.execute({ name: 'a__text_only', arguments: {} })
    expect(plain).toMatchObject({ isError: false, value: 'not json' })
    expect(warnings.filter((w) => w.includes('answered with text only'))).toHaveLength(2)
  })
})

describe('a server whose tools/list answer is no tool list', { timeout: 60_000 }, () => {
  it('S1.4 a tools/list that gives the same cursor again fails at once, saying so, not at the end of the start-up time', async () => {
    const connection = await McpConnection.start('looping', scripted('looping-cursor.json', { tools: [], listResult: { tools: [], nextCursor: 'again' } }) as McpServerConfig)
    try {
      await expect(connection.listTools()).rejects.toThrow(/could not list its tools: its tools\/list gave the cursor "again" a second time \(a loop\)/)
    } finally {
      await connection.close()
    }
  })

  it('S1.4 fails its listing with one line naming what is wrong, not zod\'s issue list', async () => {
    const connection = await McpConnection.start('nope', scripted('nope.json', { tools: 'nope' }) as McpServerConfig)
    try {
      await expect(connection.listTools()).rejects.toThrow(/^MCP server "nope" \(.*\) answered tools\/list with no tool list \(tools: Invalid input: expected array, received string\)\.$/)
    } finally {
      await connection.close()
    }
  })
})

