/**
 * Without type-checking (`typecheck: false`, `ptc run --no-typecheck`) the pipeline's argument
 * check is what the script hears (issue 11, SPEC S1.1, S9.3): a misspelt key is named, next to the
 * missing one, so the model can fix the call from the message alone.
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
})
