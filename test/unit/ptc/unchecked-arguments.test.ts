/**
 * Without type-checking (`typecheck: false`, `ptc run --no-typecheck`) the pipeline's argument
 * check is what the script hears (issue 11, SPEC S1.1, S9.3): a misspelt key is named, next to the
 * missing one, so the model can fix the call from the message alone; a misspelt tool name gets
 * the type check's own message from the isolate's `tools` (S9.1).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { usePtcRoot } from '../../helpers/ptc-root.ts'

describe.each(['process', 'inline'] as const)('issue 11 unchecked arguments (isolation %s)', (isolation) => {
  const rootOf = usePtcRoot({ isolation, typecheck: false }, (ctx) => {
    ctx.tools.register(
      defineTool({
        name: 'open_file',
        description: 'Opens a file.',
        parameters: z.strictObject({ path: z.string() }),
        output: { schema: z.object({ path: z.string() }), render: (_args, value) => [{ type: 'text', text: value.path }] },
        execute: (args) => ({ path: args.path }),
      }),
    )
  })

  it('S9.3 a call with `file` instead of `path` rejects with a ToolCallError naming the unknown key and the missing one', async () => {
    const value = await rootOf().ptc.run("try { await tools.open_file({ file: 'a.txt' }) } catch (e) { return [e.name, e.message] }")
    expect(value.status).toBe('ok')
    const [name, message] = value.value as [string, string]
    expect(name).toBe('ToolCallError')
    expect(message).toContain('Invalid arguments for "open_file"')
    expect(message).toContain('Unrecognized key: "file"')
    expect(message).toMatch(/expected string, received undefined\n\s+→ at path/)
  })

  it("S9.1 a misspelt tool name throws a ToolCallError naming the closest tools, as the type check would, not 'is not a function'", async () => {
    const value = await rootOf().ptc.run("const x = 1\nawait tools.opne_file({ path: 'a.txt' })")
    expect(value.status).toBe('error')
    expect(value.error).toMatchObject({ name: 'ToolCallError', toolName: 'opne_file', line: 2 })
    expect(value.error?.message).toMatch(/^There is no tool named 'opne_file'\. Did you mean 'open_file'\? The tools are: .*\bopen_file\b/)
    expect(value.toolCalls).toBe(0)
  })

  it('S9.1 a script can still test for a tool, list the tools, await or print `tools`, and call a real one', async () => {
    const value = await rootOf().ptc.run(
      "const listed = Object.keys(tools).includes('open_file')\nconst probed = 'opne_file' in tools\nawait tools\nconsole.log(tools)\nconst opened = await tools.open_file({ path: 'a.txt' })\nreturn [listed, probed, JSON.stringify(tools), opened.path]",
    )
    expect(value).toMatchObject({ status: 'ok', value: [true, false, '{}', 'a.txt'], logs: [{ level: 'log', text: '{"open_file":[Function: open_file]}' }] })
  })
})
