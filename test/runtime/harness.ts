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

/** Runs `js` with the test tool set; `overrides` replace request fields. */
export async function run(js: string, overrides: Partial<IsolateRunRequest> = {}, pool?: IsolatePool): Promise<RunRecord> {
  const calls: IsolateToolCall[] = []
  const dispatch = overrides.dispatch ?? defaultDispatch
  const result = await runInIsolate(
    {
      js,
      toolNames: TOOL_NAMES,
      ...overrides,
      dispatch: (call) => {
        calls.push(call)
        return dispatch(call)
      },
    },
    pool,
  )
  return { result, calls }
}

/** Asserts that a normal run with a tool call still works (run after every hostile case). */
export async function expectHealthy(pool?: IsolatePool): Promise<void> {
  const { result } = await run('const r = await tools.echo({ healthy: true }); return r', {}, pool)
  expect(result).toMatchObject({ status: 'ok', value: { healthy: true }, toolCalls: 1 })
}
