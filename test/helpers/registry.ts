/**
 * Test fixtures for the pipeline: a root context with the `ctx.tools` service, a plugin helper that
 * returns the fiber, and small tools (echo, no-op) built with `defineTool`.
 */
import { Context } from 'cordis'
import { z } from 'zod'
import { defineTool } from '../../src/tools/define-tool.ts'
import { ToolRegistry } from '../../src/pipeline/tool-registry.ts'

export async function createRoot(): Promise<Context> {
  const root = new Context()
  await root.plugin(ToolRegistry)
  return root
}

/** Install an inline plugin that needs `ctx.tools`; resolves to its fiber once applied. */
export async function usePlugin(root: Context, apply: (ctx: Context) => void, name = 'test-plugin', inject: string[] = ['tools']) {
  const fiber = root.plugin({ name, inject, apply: (ctx: Context) => void apply(ctx) })
  await fiber
  return fiber
}

/** `echo`: returns its `text` argument as `{text}`; concurrency-safe. */
export const echoTool = (overrides: Record<string, unknown> = {}) =>
  defineTool({
    name: 'echo',
    description: 'Echo the text back.',
    parameters: z.object({ text: z.string() }),
    output: {
      schema: z.object({ text: z.string() }),
      render: (_args, value) => [{ type: 'text', text: value.text }],
    },
    execute: (args) => ({ text: args.text }),
    isConcurrencySafe: () => true,
    ...(overrides as {}),
  })

export const text = (content: readonly { type: string; text?: string }[]) => content.map((block) => block.text ?? '').join('')

export const tick = (ms = 0) => new Promise<void>((resolve) => setTimeout(resolve, ms))
