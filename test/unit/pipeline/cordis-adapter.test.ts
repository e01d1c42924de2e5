import { readFileSync } from 'node:fs'
import path from 'node:path'
import { symbols } from 'cordis'
import { describe, expect, it } from 'vitest'
import { bail, eventHooks, untraced } from '../../../src/pipeline/cordis-adapter.ts'
import { ToolRegistry } from '../../../src/pipeline/tool-registry.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

// The pipeline dispatches its hooks straight from cordis' hook table (src/pipeline/cordis-adapter.ts);
// these pin that it still behaves like ctx.waterfall / ctx.emit.
describe('hook dispatch (S3)', () => {
  it('S3 a policy listener of a disposed plugin no longer runs', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool()), 'tools')
    const fiber = await usePlugin(root, (ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'policy on' })), 'policy')
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).error?.message).toBe('policy on')
    await fiber.dispose()
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).isError).toBe(false)
  })

  it('S3 a listener added while a call is in flight applies from the next call on', async () => {
    const root = await createRoot()
    const seen: string[] = []
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('tools/pre-execute', (execution, next) => {
        seen.push(`first:${execution.callId}`)
        if (execution.callId === 'c1') ctx.on('tools/pre-execute', (later, n) => (seen.push(`added:${later.callId}`), n()))
        return next()
      })
    })
    await root.tools.execute({ callId: 'c1', name: 'echo', arguments: { text: 'a' } })
    await root.tools.execute({ callId: 'c2', name: 'echo', arguments: { text: 'a' } })
    expect(seen).toEqual(['first:c1', 'first:c2', 'added:c2'])
  })

  it('S3 internal/dispatch inspectors still see every hook the pipeline dispatches', async () => {
    const root = await createRoot()
    const dispatched: string[] = []
    await usePlugin(root, (ctx) => {
      ctx.tools.register(echoTool())
      ctx.on('internal/dispatch', (mode, name) => {
        if (typeof name === 'string' && /^tools?\//.test(name)) dispatched.push(`${mode} ${name}`)
      })
    })
    await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    expect(dispatched).toEqual(['emit tool/call', 'waterfall tools/pre-execute', 'waterfall tools/execute', 'waterfall tools/post-execute', 'emit tools/result'])
  })

  it('S1.4 a tools reference held by a plugin still registers into that plugin fiber', async () => {
    const root = await createRoot()
    let held: typeof root.tools | undefined
    const fiber = await usePlugin(root, (ctx) => {
      held = ctx.tools
    })
    held!.register(echoTool())
    held!.guard(() => 'held guard')
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })).error?.message).toBe('held guard')
    await fiber.dispose()
    expect(root.tools.get('echo')).toBeUndefined()
  })

  it('cordis is exactly the version the adapter was written against (4.0.0-rc.10): upgrading means re-reading cordis-adapter.ts', () => {
    const manifest = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../node_modules/cordis/package.json'), 'utf8')) as { version: string }
    expect(manifest.version).toBe('4.0.0-rc.10')
    const ours = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { dependencies: Record<string, string> }
    expect(ours.dependencies.cordis).toBe('4.0.0-rc.10')
  })

  it('S1.4 the tools service is traced without shadows, and this.ctx is still the calling plugin', async () => {
    const root = await createRoot()
    const tracker = (root.tools as unknown as Record<symbol, { noShadow?: boolean; associate?: string; property?: string }>)[symbols.tracker]
    expect(tracker).toMatchObject({ noShadow: true, property: 'ctx' })
    expect(tracker && 'associate' in tracker).toBe(false)
    // the same method reference on every access: no per-access shadow proxy
    expect(root.tools.execute).toBe(root.tools.execute)
  })
  it('S9.1 the ptc service is traced without shadows too, and its run path holds the registry itself (issue 12)', async () => {
    const root = await createRoot()
    await root.plugin(Ptc, { prestart: false })
    const tracker = (root.ptc as unknown as Record<symbol, { noShadow?: boolean }>)[symbols.tracker]
    expect(tracker).toMatchObject({ noShadow: true })
    expect(root.ptc.run).toBe(root.ptc.run)
    expect(untraced(root.ptc)._tools).toBe(untraced(root.tools))
  })

  it("bail answers as cordis' ctx.bail does: listeners in order, the first answer that is not null, undefined or false", async () => {
    const root = await createRoot()
    const heard: string[] = []
    await usePlugin(root, (ctx) => {
      ctx.on('permission/access' as never, (() => void heard.push('first')) as never)
      ctx.on('permission/access' as never, (() => (heard.push('second'), false)) as never)
      ctx.on('permission/access' as never, (() => (heard.push('third'), { path: 'x' })) as never)
      ctx.on('permission/access' as never, (() => (heard.push('fourth'), { path: 'y' })) as never)
    })
    const ours = bail(eventHooks(root), 'permission/access', [{ name: 'a' }])
    expect(heard).toEqual(['first', 'second', 'third'])
    heard.length = 0
    expect((root as unknown as { bail: (...args: unknown[]) => unknown }).bail('permission/access', { name: 'a' })).toEqual(ours)
    expect(heard).toEqual(['first', 'second', 'third'])
    expect(bail(eventHooks(root), 'no/listeners', [])).toBeUndefined()
  })

  it('S1.4 a service passed to a listener is still traced into the listening plugin (listeners are bound without proxy traps)', async () => {
    const root = await createRoot()
    expect(Object.hasOwn(untraced(root.reflect) as object, 'bind')).toBe(true)
    const received: unknown[] = []
    const listener = await usePlugin(root, (ctx) => {
      ctx.on('test/hand-over' as never, ((tools: ToolRegistry, extra: unknown) => {
        received.push(extra)
        tools.register(echoTool())
      }) as never)
    }, 'listener')
    const plain = { a: 1 }
    ;(root as unknown as { emit: (...args: unknown[]) => void }).emit('test/hand-over', untraced(root.tools), plain)
    expect(received).toEqual([plain])
    expect(received[0]).toBe(plain)
    expect(root.tools.get('echo')).toBeDefined()
    // The registration belongs to the listener's fiber, as with cordis' own binding.
    await listener.dispose()
    expect(root.tools.get('echo')).toBeUndefined()
  })

  it('untraced is the registry behind ctx.tools, and a plain object stays itself', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) => void ctx.tools.register(echoTool()))
    const registry = untraced(root.tools)
    expect(registry).toBeInstanceOf(ToolRegistry)
    expect(registry).not.toBe(root.tools)
    expect(registry.get('echo')).toBeDefined()
    expect(registry.get('echo')).toBe(root.tools.get('echo'))
    const plain = { a: 1 }
    expect(untraced(plain)).toBe(plain)
  })
})
