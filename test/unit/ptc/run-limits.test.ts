import { describe, expect, it } from 'vitest'
import { DEFAULT_RUN_LIMITS, MAX_MEMORY_MB, resolveRunLimits } from '../../../src/ptc/isolate/run-limits.ts'

describe('resolveRunLimits (S9.7)', () => {
  it('merges overrides over the defaults, flooring fractions', () => {
    expect(resolveRunLimits({ memoryMb: 64.7, maxToolCalls: 0 })).toEqual({ ...DEFAULT_RUN_LIMITS, memoryMb: 64, maxToolCalls: 0 })
  })

  it('refuses a limit below its minimum, not finite, or a heap past 1 TiB (isolated-vm would wrap it to a tiny one)', () => {
    expect(() => resolveRunLimits({ memoryMb: 4 })).toThrow('RunLimits.memoryMb must be a finite number >= 8, got 4')
    expect(() => resolveRunLimits({ wallClockMs: Number.POSITIVE_INFINITY })).toThrow(/RunLimits\.wallClockMs must be a finite number >= 1/)
    expect(resolveRunLimits({ memoryMb: MAX_MEMORY_MB }).memoryMb).toBe(1_048_576)
    expect(() => resolveRunLimits({ memoryMb: 2 ** 53 - 1 })).toThrow('RunLimits.memoryMb must be at most 1048576 (1 TiB), got 9007199254740991')
  })
})
