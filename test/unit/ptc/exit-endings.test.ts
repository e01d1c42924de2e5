/**
 * How a run ends when its isolate worker process has exited (S9.1, S9.7; `exitEnding`): the limits
 * it names are the ones its caller set, the type-check's share of the wall clock (`checkMs`) in.
 */
import { describe, expect, it } from 'vitest'
import { resolveRunLimits } from '../../../src/ptc/isolate/run-limits.ts'
import { SupervisedRun, type SupervisedRunHooks } from '../../../src/ptc/isolate/supervised-run.ts'
import { exitEnding, type SupervisedWorker } from '../../../src/ptc/isolate/supervised-worker.ts'

const hooks: SupervisedRunHooks = { send: () => true, answer: () => {}, retire: () => {}, cancelWhileHeld: () => false, ended: () => {} }
const run = new SupervisedRun({
  runId: '7',
  request: { js: 'return 1', toolNames: [], dispatch: async () => ({ ok: true, valueJson: 'null' }), checkMs: 299.6 },
  limits: resolveRunLimits({ wallClockMs: 700, cpuTimeMs: 900 }),
  startedAt: 0,
  graceMs: 1_000,
  hooks,
})
const exited = (fields: Partial<SupervisedWorker>) => ({ catastrophe: undefined, killReason: undefined, ...fields }) as SupervisedWorker

describe('the ending of a run whose worker exited (S9.1, S9.7)', () => {
  it('S9.7 a held step that overran names the wall-clock limit its caller set, the type-check time in it, and the CPU limit as set', () => {
    expect(run.statedLimits).toMatchObject({ wallClockMs: 1_000, cpuTimeMs: 900 })
    expect(exitEnding(exited({ overrun: { runId: '7', byCpu: false } }), '7', run.statedLimits, 'SIGKILL').error.message).toContain('wall-clock limit of 1000 ms (wallClockMs)')
    expect(exitEnding(exited({ overrun: { runId: '7', byCpu: true } }), '7', run.statedLimits, 'SIGKILL').error.message).toContain('CPU time limit of 900 ms (cpuTimeMs)')
  })

  it('S9.1 another run of that worker ends as a crash, or as the stop the host made', () => {
    expect(exitEnding(exited({ overrun: { runId: '8', byCpu: false } }), '7', run.statedLimits, 'signal SIGSEGV').error.message).toContain('crashed (signal SIGSEGV)')
    expect(exitEnding(exited({ killReason: 'it was drained' }), '7', run.statedLimits, 'SIGKILL').error.message).toContain('was stopped (it was drained)')
  })
})
