/**
 * `PtcConfig.maxWallClockMs` bounds every run's deadline (SPEC S9.7): the one a caller asks for
 * with `timeoutMs`, and the default one too, so lowering the cap below the default deadline is
 * not silently ignored; a capped `timeoutMs` is said in the timeout's message. Outcomes only.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import { recursiveTypesScript } from '../../fixtures/attack-scripts.ts'
import { createRoot } from '../../helpers/registry.ts'

describe('maxWallClockMs (S9.7)', () => {
  let root: Context
  let dispose: () => unknown
  beforeAll(async () => {
    root = await createRoot()
    const fiber = root.plugin(Ptc, { isolation: 'inline', poolSize: 1, typecheck: false, maxWallClockMs: 400 })
    await fiber
    dispose = () => fiber.dispose()
  }, 60_000)
  afterAll(() => dispose())

  it('caps the default deadline: a run asking for nothing ends at the cap, not at the 30 s default', async () => {
    const result = await root.ptc.run('await new Promise(() => {})')
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toMatch(/^The script did not finish within the wall-clock limit of 400 ms \(wallClockMs\)/)
    expect(result.error?.message).not.toMatch(/capped/)
  })

  it('caps a larger timeoutMs and says so in the timeout message', async () => {
    const result = await root.ptc.run('await new Promise(() => {})', { timeoutMs: 5_000 })
    expect(result.status).toBe('timeout')
    expect(result.error?.message).toMatch(/within the wall-clock limit of 400 ms .*\(timeoutMs 5000 was capped to 400 ms, the most this host allows: maxWallClockMs\.\)$/)
  })

  it('caps ptc check (ctx.ptc.check) the same way', async () => {
    const other = await createRoot()
    const fiber = other.plugin(Ptc, { isolation: 'inline', poolSize: 0, checkers: 1, maxWallClockMs: 300 })
    await fiber
    try {
      // A type that takes the checker far longer than 300 ms.
      const diagnostics = await other.ptc.check(recursiveTypesScript())
      expect(diagnostics).toEqual([expect.objectContaining({ line: 1, column: 1, message: expect.stringMatching(/^Type-checking the script did not finish within 300 ms \(wallClockMs\) and was stopped/) })])
    } finally {
      await fiber.dispose()
    }
  }, 60_000)

  it('keeps a smaller timeoutMs as asked', async () => {
    const result = await root.ptc.run('await new Promise(() => {})', { timeoutMs: 200 })
    expect(result.error?.message).toMatch(/within the wall-clock limit of 200 ms/)
  })
})
