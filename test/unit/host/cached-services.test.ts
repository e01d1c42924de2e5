/**
 * `Host.ctx` answers the host's services from a cache (issue 12: a cordis lookup is 8-9 µs, and
 * 100-150 µs on a thread that slept): the same service object every time, still traced to the
 * host's context (a tool registered through it goes away with the host), everything else passed
 * to cordis, and after `dispose()` refused with an error that says the host was disposed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Context } from 'cordis'
import { createHost } from '../../../src/host/create-host.ts'
import { untraced } from '../../../src/pipeline/cordis-adapter.ts'
import { Approval } from '../../../src/policy/approval.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'

let workspace: string
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-cached-services-'))
})
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

const echo = defineTool({
  name: 'echo',
  description: 'Answers its text.',
  parameters: z.object({ text: z.string() }),
  output: { schema: z.string(), render: (_args, value) => [{ type: 'text', text: value }] },
  execute: (args) => args.text,
})

describe('Host.ctx services (issue 12)', () => {
  it('S3 host.ctx.tools is the same registry on every lookup and runs the pipeline as before; other context members still work', async () => {
    const host = await createHost({ workspace, journal: false, builtins: [], ptc: { isolation: 'inline', poolSize: 0 } })
    try {
      const tools = host.ctx.tools
      expect(host.ctx.tools).toBe(tools)
      expect(host.ctx.ptc).toBe(host.ctx.ptc)
      host.ctx.tools.register(echo)
      expect(await host.ctx.tools.execute({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ isError: false, value: 'hi' })
      expect((await host.ctx.tools.execute({ name: 'echo', arguments: { text: 1 } })).error?.kind).toBe('invalid-arguments')
      let applied = false
      await host.ctx.plugin({ name: 'late', inject: ['tools'], apply: (ctx) => void (applied = ctx.tools.list().some((tool) => tool.name === 'echo')) })
      expect(applied).toBe(true)
    } finally {
      await host.dispose()
    }
  })

  it('S3 after dispose a service lookup through host.ctx is refused, saying the host was disposed and what to do, not answered from the cache, and a registry held from before says the host was disposed', async () => {
    const host = await createHost({ workspace, journal: false, builtins: [], ptc: { isolation: 'inline', poolSize: 0 } })
    const held = host.ctx.tools // cached, and held by the caller
    await host.dispose()
    expect(() => host.ctx.tools).toThrow('host.ctx.tools is gone: this host was disposed (host.dispose()). Make a new host with createHost() for more calls.')
    // A registry held from before says why nothing can be called, not that the tool is unknown.
    const late = await held.execute({ name: 'run_code', arguments: { code: 'return 1' } })
    expect(late).toMatchObject({ isError: true, error: { kind: 'unknown-tool', message: 'The tool registry has stopped (its host was disposed): "run_code" was not called. Make a new host.' } })
  })

  it('S3 a context derived from host.ctx keeps what it adds (extend), as one derived from the cordis context does', async () => {
    const host = await createHost({ workspace, journal: false, builtins: [], ptc: { isolation: 'inline', poolSize: 0 } })
    try {
      let marker: unknown
      await (host.ctx.extend({ marker: 1 }) as Context).plugin({ name: 'probe', apply: (ctx: Context) => void (marker = (ctx as unknown as { marker: number }).marker) })
      expect(marker).toBe(1)
    } finally {
      await host.dispose()
    }
  })

  it('S3 a host service stopped later is refused through host.ctx as cordis refuses it, and one started again is the new one, not the cached one', async () => {
    const host = await createHost({ workspace, journal: false, builtins: [], ptc: { isolation: 'inline', poolSize: 0 } })
    try {
      const cordisCtx = host.ctx.fiber.ctx as Context
      const before = untraced(host.ctx.approval)
      for (const fiber of [...(host.ctx.registry.get(Approval)?.fibers ?? [])]) await fiber.dispose()
      expect(() => host.ctx.approval).toThrow(/approval/)
      await cordisCtx.root.plugin(Approval)
      const after = untraced(host.ctx.approval)
      expect(after).not.toBe(before)
      expect(after).toBe(untraced(cordisCtx.approval))
    } finally {
      await host.dispose()
    }
  })
})
