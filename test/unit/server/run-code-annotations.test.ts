import { describe, expect, it } from 'vitest'
import { runCodeAnnotations } from '../../../src/server/exposed-tools.ts'
import type { ToolAnnotations } from '../../../src/tools/types.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

/** A registry holding one echo-like tool per entry, each with those hints (undefined: none). */
async function registryWith(hints: (ToolAnnotations | undefined)[]) {
  const root = await createRoot()
  await usePlugin(root, (ctx) => {
    hints.forEach((annotations, i) => ctx.tools.register(echoTool({ name: `t${i}`, ...(annotations && { annotations }) })))
  })
  return root.tools
}

describe('run_code\'s MCP hints sum up the tools a script can call (S9.4)', () => {
  it('only read-only, closed-world tools: run_code is read-only, not destructive, closed-world, never idempotent', async () => {
    const tools = await registryWith([{ readOnlyHint: true, openWorldHint: false }, { readOnlyHint: true, openWorldHint: false }])
    expect(runCodeAnnotations(tools)).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false })
  })

  it('one tool without hints counts as MCP\'s defaults: run_code may destroy and reach the open world', async () => {
    const tools = await registryWith([{ readOnlyHint: true, openWorldHint: false }, undefined])
    expect(runCodeAnnotations(tools)).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
  })

  it('a writing tool that declares itself not destructive and closed-world: not read-only, not destructive, closed-world', async () => {
    const tools = await registryWith([{ readOnlyHint: false, destructiveHint: false, openWorldHint: false }, { readOnlyHint: true, openWorldHint: false }])
    expect(runCodeAnnotations(tools)).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false })
  })
})
