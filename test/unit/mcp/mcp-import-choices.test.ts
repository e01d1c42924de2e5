import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as mcpImport from '../../../src/mcp/mcp-import.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

const SCRIPTED = fileURLToPath(new URL('../../fixtures/scripted-mcp-server.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ptc-choices-'))
function scripted(file: string, script: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  writeFileSync(join(dir, file), JSON.stringify(script))
  return { command: process.execPath, args: [SCRIPTED, join(dir, file)], ...extra }
}
const object = { type: 'object', properties: {} }
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: object, ...extra })

describe('choosing, naming and describing imported tools (S1.4, S9.1, S9.4)', { timeout: 60_000 }, () => {
  let root: Context
  const warnings: string[] = []
  beforeAll(async () => {
    root = await createRoot()
    // A tool registered before the import takes the name reg__x.
    await usePlugin(root, (ctx) => void ctx.tools.register(echoTool({ name: 'reg__x' })))
    await root.plugin(mcpImport, {
      warn: (message: string) => void warnings.push(message),
      mcpServers: {
        inc: scripted('inc.json', { tools: [tool('a'), tool('b'), tool('c')] }, { include: ['a', 'c', 'ghost'] }),
        reg: scripted('reg.json', { tools: [tool('x'), tool('y'), tool('constructor'), tool('toString')], results: { y: { content: [{ type: 'text', text: 'y works' }] } } }),
        hints: scripted('hints.json', {
          tools: [
            tool('lookup', { title: 'Look something up', annotations: { title: 'ignored beside title', readOnlyHint: true, destructiveHint: false } }),
            tool('bad_hint', { annotations: { openWorldHint: 'yes' } }),
            tool('titled_by_annotations', { annotations: { title: 'From annotations' } }),
            tool('bare'),
            tool('silent_failure'),
          ],
          results: { silent_failure: { content: [], structuredContent: { reason: 'quota', project: 'p1' }, isError: true } },
        }),
      },
    })
  }, 60_000)
  afterAll(() => root.registry.get(mcpImport) && root.registry.delete(mcpImport))

  it('include imports only the named tools, and a name the server does not list is warned about', () => {
    expect(root.tools.get('inc__a')).toBeDefined()
    expect(root.tools.get('inc__b')).toBeUndefined()
    expect(root.tools.get('inc__c')).toBeDefined()
    expect(warnings).toContainEqual('MCP server "inc": the config names tool "ghost" (include/exclude/rename), but the server does not list it.')
  })

  it('a tool whose name is taken by a tool registered before is left out with the fix, and start-up goes on', async () => {
    expect(root.tools.get('reg__x')?.description).toBe('Echo the text back.')
    expect(warnings).toContainEqual(
      'MCP server "reg": tool "x" is left out: its name reg__x is already taken by the registered tool "reg__x". To keep it, add "rename": {"x": "<new name>"} (or "exclude": ["x"]) to server "reg" in the MCP config.',
    )
    expect((await root.tools.execute({ name: 'reg__y', arguments: {} })).value).toBe('y works')
  })

  it('a tool named like an Object.prototype member keeps its name (rename is read for own keys only)', () => {
    // Before: reg__function_Object______native_code___ from rename["constructor"].
    expect(root.tools.get('reg__constructor')).toBeDefined()
    expect(root.tools.get('reg__toString')).toBeDefined()
    expect(root.tools.list().filter((t) => t.name.includes('native_code'))).toEqual([])
  })

  it('S9.4 the server\'s title and behaviour hints are kept; no hints means none are claimed; a hint that is not a boolean makes the tool malformed', () => {
    expect(root.tools.get('hints__lookup')).toMatchObject({ title: 'Look something up', annotations: { readOnlyHint: true, destructiveHint: false } })
    expect(Object.keys(root.tools.get('hints__lookup')!.annotations!).sort()).toEqual(['destructiveHint', 'readOnlyHint'])
    expect(root.tools.get('hints__bad_hint')).toBeUndefined()
    expect(warnings.filter((w) => w.includes('"bad_hint"'))).toEqual([expect.stringMatching(/^MCP server "hints": tool "bad_hint" is left out: annotations\.openWorldHint: .*boolean/)])
    expect(root.tools.get('hints__titled_by_annotations')!.title).toBe('From annotations')
    expect(root.tools.get('hints__titled_by_annotations')!.annotations).toBeUndefined()
    expect(root.tools.get('hints__bare')!.title).toBeUndefined()
    expect(root.tools.get('hints__bare')!.annotations).toBeUndefined()
  })

  it('S9.3 a failed result without text carries its structuredContent as the message', async () => {
    const result = await root.tools.execute({ name: 'hints__silent_failure', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.error?.message).toBe('Tool "hints__silent_failure" failed: {"reason":"quota","project":"p1"}')
  })
})
