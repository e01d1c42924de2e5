/**
 * A body's account of what it had done when its caller stopped it (`Execution.noteCancel`; SPEC
 * S5.1, S6.3): the caller's stop ends the pipeline's wait for the body at once, so what the body
 * says while the stop is handled is the only account that reaches the cancellation result.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Execution } from '../../../src/pipeline/execution.ts'
import { CANCELLED_MESSAGE } from '../../../src/pipeline/results.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolExecution } from '../../../src/tools/types.ts'
import { createRoot, usePlugin } from '../../helpers/registry.ts'

/** The cancellation a call of a tool gets whose body runs `started` (with its execution and a cancel of its caller), then never ends. */
async function cancelledResult(started: (execution: ToolExecution, cancel: () => void) => void) {
  const root = await createRoot()
  const caller = new AbortController()
  await usePlugin(root, (ctx) =>
    void ctx.tools.register(
      defineTool({
        name: 'upload',
        description: 'Uploads in parts until stopped.',
        parameters: z.object({}),
        output: { schema: z.null(), render: () => [] },
        execute: (_args, execution) => new Promise<null>(() => started(execution, () => setTimeout(() => caller.abort(), 0))),
      }),
    ),
  )
  return root.tools.execute({ name: 'upload', arguments: {} }, { agent: 'a', signal: caller.signal })
}

describe('cancel notes', () => {
  it("S5.1 S6.3 the cancellation of a started call carries the note its body left as its caller's stop came", async () => {
    const result = await cancelledResult((execution, cancel) => {
      execution.signal.addEventListener('abort', () => Execution.noteCancel(execution, '3 of 5 parts were uploaded.'), { once: true })
      cancel()
    })
    expect(result.error).toEqual({ kind: 'cancelled', message: `${CANCELLED_MESSAGE} 3 of 5 parts were uploaded.` })
  })

  it("S6.3 a note left before the caller's stop is not taken (a wrapper retrying on its own signal leaves none behind)", async () => {
    const result = await cancelledResult((execution, cancel) => {
      Execution.noteCancel(execution, 'said before the stop')
      cancel()
    })
    expect(result.error).toEqual({ kind: 'cancelled', message: CANCELLED_MESSAGE })
  })
})
