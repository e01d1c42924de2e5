/**
 * Shared helpers of the isolate tests: a run with an echo/fail/slow tool set, a record of every
 * dispatch, and a health check that proves the host still serves runs after a hostile one.
 */
import { expect } from 'vitest'
import type { IsolateRunRequest, IsolateRunResult, IsolateToolCall, IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import type { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { runInIsolate } from '../../src/ptc/isolate/isolate-run.ts'

export const TOOL_NAMES = ['echo', 'fail', 'noop', 'slow', 'hang', 'big'] as const

export interface RunRecord {
  result: IsolateRunResult
  calls: IsolateToolCall[]
}

/**
 * Limits of a memory-bomb run: 32 MB, and CPU and wall-clock budgets far away, so that on a
 * loaded machine (where isolate "CPU time", a steady-clock measure, grows) the memory limit is
 * still what ends it.
 */
export const MEMORY_BOMB_LIMITS = Object.freeze({ memoryMb: 32, cpuTimeMs: 120_000, wallClockMs: 120_000 })

/** Default dispatch: echo returns its arguments, fail fails, slow answers after 20 ms, hang never answers. */
export async function defaultDispatch(call: IsolateToolCall): Promise<IsolateToolOutcome> {
  switch (call.name) {
    case 'echo':
      return { ok: true, valueJson: call.argsJson }
    case 'noop':
      return { ok: true, valueJson: 'null' }
    case 'fail':
      return { ok: false, message: 'the tool said no' }
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { ok: true, valueJson: call.argsJson }
    case 'hang':
      return new Promise(() => {})
    case 'big':
      return { ok: true, valueJson: JSON.stringify('x'.repeat((JSON.parse(call.argsJson) as { size: number }).size)) }
    default:
      return { ok: false, message: `unknown tool ${call.name}` }
  }
}

/** Anything that runs one isolate request: `runInIsolate` on a pool, or an `IsolateSupervisor`'s `run`. */
export type IsolateRunner = (request: IsolateRunRequest) => Promise<IsolateRunResult>

/** Runs `js` with the test tool set through `runner`; `overrides` replace request fields. */
export async function runOn(runner: IsolateRunner, js: string, overrides: Partial<IsolateRunRequest> = {}): Promise<RunRecord> {
  const calls: IsolateToolCall[] = []
  const dispatch = overrides.dispatch ?? defaultDispatch
  const result = await runner({
    js,
    toolNames: TOOL_NAMES,
    ...overrides,
    dispatch: (call) => {
      calls.push(call)
      return dispatch(call)
    },
  })
  return { result, calls }
}

/** Runs `js` in-process (`runInIsolate`, on `pool` when given) with the test tool set. */
export function run(js: string, overrides: Partial<IsolateRunRequest> = {}, pool?: IsolatePool): Promise<RunRecord> {
  return runOn((request) => runInIsolate(request, pool), js, overrides)
}

/** Asserts that a normal run with a tool call still works through `runner` (run after every hostile case). */
export async function expectHealthyOn(runner: IsolateRunner): Promise<void> {
  const { result } = await runOn(runner, 'const r = await tools.echo({ healthy: true }); return r')
  expect(result).toMatchObject({ status: 'ok', value: { healthy: true }, toolCalls: 1 })
}

/** Asserts that a normal in-process run with a tool call still works (on `pool` when given). */
export function expectHealthy(pool?: IsolatePool): Promise<void> {
  return expectHealthyOn((request) => runInIsolate(request, pool))
}

/**
 * A dispatch whose calls never answer, except those `answer` returns an outcome for; `signals`
 * holds the signal of every call left hanging, in call order (to await the call, then to see it aborted).
 */
export function hangingDispatch(answer?: (call: IsolateToolCall) => Promise<IsolateToolOutcome> | undefined): { signals: AbortSignal[]; dispatch: IsolateRunRequest['dispatch'] } {
  const signals: AbortSignal[] = []
  const dispatch = (call: IsolateToolCall): Promise<IsolateToolOutcome> => {
    const answered = answer?.(call)
    if (answered) return answered
    signals.push(call.signal)
    return new Promise(() => {})
  }
  return { signals, dispatch }
}

/**
 * Resolves when `predicate` holds, polling every 5 ms. `timeoutMs` only bounds a wait for
 * something that never happens (a failure), so it is long: a loaded machine must not fail it.
 * @throws Error `condition not reached` after `timeoutMs`.
 */
export async function until(predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** 10 times what `js` takes just now (on `on`), at least 500 ms: a deadline one phase must mostly fill (at load 21 a start alone took 300 ms). */
export async function calibratedDeadline(js: string, on: IsolatePool | undefined): Promise<number> {
  const { result } = await run(js, {}, on)
  expect(result.status).toBe('ok')
  return Math.max(500, Math.ceil(10 * result.durationMs))
}
