/**
 * A tool that runs until its call is aborted, for tests of what stops runs and calls (dispose,
 * shutdown, a client gone): `running` settles when a call has started, `stopped` with the abort
 * reason once it was aborted; after `cleanUpMs` (as a sandboxed command's process group takes a
 * moment to die) the call fails.
 */
import { z } from 'zod'
import { defineTool, type Tool } from '../../src/tools/define-tool.ts'

export function stoppableTool(name: string, cleanUpMs = 0): { tool: Tool; running: Promise<void>; stopped: Promise<unknown> } {
  let started!: () => void
  let aborted!: (reason: unknown) => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const stopped = new Promise<unknown>((resolve) => (aborted = resolve))
  const tool = defineTool({
    name,
    description: 'Runs until aborted, then takes a moment to stop.',
    parameters: {},
    output: { schema: z.object({}), render: () => [{ type: 'text', text: 'done' }] },
    async execute(_args, exec) {
      started()
      await new Promise((resolve) => exec.signal.addEventListener('abort', resolve, { once: true }))
      aborted(exec.signal.reason)
      await new Promise((resolve) => setTimeout(resolve, cleanUpMs))
      throw new Error('stopped')
    },
  })
  return { tool, running, stopped }
}

/** A tool that answers `{}` at once; `running` settles when a call has started (the script is past its start). */
export function markerTool(name: string): { tool: Tool; running: Promise<void> } {
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const tool = defineTool({ name, description: 'Says the script is running.', parameters: {}, output: { schema: z.object({}), render: () => [] }, execute: async () => (started(), {}) })
  return { tool, running }
}
