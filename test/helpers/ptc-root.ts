/**
 * A root context with `ctx.tools` and the `Ptc` service for one `describe` block: created and
 * prewarmed in `beforeAll`, disposed in `afterAll`. `register` adds the block's tools.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll } from 'vitest'
import { Ptc, type PtcConfig } from '../../src/ptc/ptc-service.ts'
import { createRoot, usePlugin } from './registry.ts'

/** Registers the hooks; the returned function gives the root once `beforeAll` has run. */
export function usePtcRoot(config: PtcConfig, register: (ctx: Context) => void): () => Context {
  let root: Context | undefined
  let dispose: () => unknown = () => {}
  beforeAll(async () => {
    root = await createRoot()
    const fiber = root.plugin(Ptc, { poolSize: 1, checkers: 1, ...config })
    await fiber
    dispose = () => fiber.dispose()
    await usePlugin(root, register)
    await root.ptc.prewarm()
  }, 60_000)
  afterAll(() => dispose())
  return () => {
    if (root === undefined) throw new Error('usePtcRoot: the root exists only inside tests')
    return root
  }
}
