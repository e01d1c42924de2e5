/**
 * When a run's step may hold its isolate worker, and where new runs go meanwhile (issue 12,
 * `step-permission.ts`), and the worker's stack limit that such steps need (`worker-stack.ts`).
 */
import { describe, expect, it } from 'vitest'
import { mayHoldWorker, routingLoad, type StepMember } from '../../../src/ptc/isolate/step-permission.ts'
import { STEP_STACK_KB, stackLimitKb, stackRoomKb } from '../../../src/ptc/isolate/worker-stack.ts'

const member = (active: number, workerState = 'ready', mayBeBlocked = false): StepMember => ({ active, supervisor: { workerState, mayBeBlocked } })

describe('step permission (issue 12, S9.1)', () => {
  it('issue 12 a step may hold a worker only while another ready worker serves no run and is not held', () => {
    expect(mayHoldWorker([member(1), member(0)], 0)).toBe(true)
    expect(mayHoldWorker([member(1), member(1)], 0)).toBe(false)
    expect(mayHoldWorker([member(1), member(0, 'starting')], 0)).toBe(false)
    expect(mayHoldWorker([member(1), member(0, 'ready', true)], 0)).toBe(false)
    expect(mayHoldWorker([member(1)], 0)).toBe(false) // a lone worker never
    expect(mayHoldWorker([member(1), member(2), member(0)], 1)).toBe(true)
  })

  it('S9.1 routing puts a worker a step may hold after every other, whatever their runs', () => {
    expect(routingLoad(member(0, 'ready', true))).toBeGreaterThan(routingLoad(member(50)))
    expect(routingLoad(member(2))).toBeGreaterThan(routingLoad(member(1)))
  })

  it("issue 12 the worker's stack is raised only when the system's stack limit leaves room for it", () => {
    expect(stackLimitKb('Max cpu time   unlimited  unlimited  seconds\nMax stack size            8388608              unlimited            bytes\n')).toBe(8192)
    expect(stackLimitKb('Max stack size            unlimited            unlimited            bytes\n')).toBe(Infinity)
    expect(stackLimitKb('')).toBe(0)
    expect(stackLimitKb('Max stack size  2097152  unlimited  bytes')).toBeLessThan(STEP_STACK_KB)
  })

  it("issue 12 the worker's environment and arguments count against its stack limit (a 1.2 MB environment leaves no room under 8 MB)", () => {
    expect(stackRoomKb(8192, { PATH: '/usr/bin' }, ['node', 'entry.js'])).toBeGreaterThanOrEqual(STEP_STACK_KB)
    expect(stackRoomKb(8192, { BIG: 'x'.repeat(1_200 * 1024) }, ['node'])).toBeLessThan(STEP_STACK_KB)
    expect(stackRoomKb(8192, {}, ['x'.repeat(1_200 * 1024)])).toBeLessThan(STEP_STACK_KB)
    expect(stackRoomKb(Infinity, { BIG: 'x'.repeat(1_200 * 1024) }, [])).toBe(Infinity)
  })
})
