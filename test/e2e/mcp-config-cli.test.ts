/**
 * `ptc check` and `ptc run` with `--mcp-config`, as a user runs them, importing the tools of a
 * scripted fake server (test/fixtures/scripted-mcp-server.ts): a text-only tool (declared
 * `string`), a tool with an `outputSchema` (declared by it), and a malformed tool (left out with
 * one warning, the others still working).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'

const SCRIPTED = fileURLToPath(new URL('../fixtures/scripted-mcp-server.ts', import.meta.url))
const WARNING = 'ptc: MCP server "srv": tool "broken" is left out: inputSchema has no "type"; MCP requires "type": "object".\n'

let dir: string
const ptc = (...args: string[]) => runPtc([...args, '--workspace', dir, '--mcp-config', join(dir, 'mcp.json')], dir)
/** How many times `text` holds `part`. */
const count = (text: string, part: string) => text.split(part).length - 1

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-mcp-cli-'))
  const script = {
    tools: [
      { name: 'note', description: 'A note on a topic.', inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] } },
      {
        name: 'stats',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'object', properties: { count: { type: 'number' }, label: { type: 'string' } }, required: ['count', 'label'], additionalProperties: false },
      },
      { name: 'broken', inputSchema: { properties: {} } },
    ],
    results: {
      note: { content: [{ type: 'text', text: 'first line' }, { type: 'text', text: 'second line' }] },
      stats: { content: [{ type: 'text', text: '3 items' }], structuredContent: { count: 3, label: 'items' } },
    },
  }
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script))
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { srv: { command: process.execPath, args: [SCRIPTED, join(dir, 'script.json')] } } }))
  // Narrowing with typeof: were the text tool declared an object, `note` would be `never` in the
  // string branch and `note.split` a type error.
  writeFileSync(
    join(dir, 'ok.ts'),
    [
      "const note = await tools.srv__note({ topic: 'a' })",
      "const lines = typeof note === 'string' ? note.split('\\n') : []",
      'const text: string = note',
      'const stats = await tools.srv__stats({})',
      'const total: number = stats.count',
      'return { lines, length: text.length, total, label: stats.label.toUpperCase() }',
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(dir, 'bad.ts'),
    ["const note = await tools.srv__note({ topic: 'a' })", 'const n: number = note', 'const stats = await tools.srv__stats({})', 'stats.cont', 'await tools.srv__broken({})', 'return n', ''].join('\n'),
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ptc check and ptc run with --mcp-config (S9.1, S1.4)', { timeout: 90_000 }, () => {
  it('check: the text-only tool is a string (typeof narrows), the outputSchema tool is its object, and the malformed tool is left out with one warning', async () => {
    const { code, stdout, stderr } = await ptc('check', 'ok.ts')
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' })
    expect(stderr).toBe(WARNING)
  })

  it('check: misusing those types fails with line:column diagnostics, and the left-out tool does not exist', async () => {
    const { code, stdout, stderr } = await ptc('check', 'bad.ts')
    expect(code).toBe(1)
    expect(stdout).toContain("2:7 error TS2322: Type 'string' is not assignable to type 'number'.")
    expect(stdout).toContain("4:7 error TS2551: Property 'cont' does not exist on type '{ count: number; label: string; }'. Did you mean 'count'?")
    expect(stdout).toMatch(/5:13 error TS2339: There is no tool named 'srv__broken'\. The tools are: .*srv__note, srv__stats/)
    expect(count(stderr, 'left out')).toBe(1)
  })

  it('run: the values match the checked types (the joined text, the structuredContent), with the one warning', async () => {
    const { code, stdout, stderr } = await ptc('run', 'ok.ts', '--json')
    expect(code, stderr).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', value: { lines: ['first line', 'second line'], length: 22, total: 3, label: 'ITEMS' }, toolCalls: 2 })
    expect(count(stderr, 'left out')).toBe(1)
    expect(stderr).toContain(WARNING)
  })
})
