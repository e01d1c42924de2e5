/**
 * Scheduling of one turn's tool calls (SPEC S7): each call is admitted through an
 * {@link ExecutionGate} with its execution mode, so parallel-safe neighbours overlap in a rolling
 * pool and exclusive calls form barriers. Results come back in call order (S7.2).
 */
import { materializeJson } from '../pipeline/materialize.ts'
import type { ExecuteOptions, ToolCall, ToolExecutionMode, ToolResult } from '../tools/types.ts'
import { ExecutionGate } from './execution-gate.ts'

const EXCLUSIVE: ToolExecutionMode = Object.freeze({ kind: 'exclusive' })

/** What the scheduler needs: the registry (`ctx.tools`) satisfies it. */
export interface SchedulerTarget {
  executionMode(call: ToolCall): ToolExecutionMode
  execute(call: ToolCall, options?: ExecuteOptions): Promise<ToolResult>
}

/** Options: `concurrency` is the width of the rolling pool for parallel calls (default `DEFAULT_CONCURRENCY`, 16). */
export interface ScheduleOptions extends ExecuteOptions {
  concurrency?: number
}

/**
 * Run a turn's calls (S7.1, S7.2). Never rejects, since `execute` never does (S6.5).
 * @returns results in the order of `calls`.
 * @throws RangeError synchronously-rejected when `concurrency` is not a positive integer.
 */
export async function scheduleCalls(
  target: SchedulerTarget,
  calls: readonly ToolCall[],
  options: ScheduleOptions = {},
): Promise<ToolResult[]> {
  const { concurrency, ...execute } = options
  const gate = new ExecutionGate(concurrency)
  return Promise.all(
    calls.map((call) => {
      const { snapshot, mode } = classify(target, call)
      return gate.run(mode, () => target.execute(snapshot, execute))
    }),
  )
}

/**
 * Read `call` once (S6.1) and classify that snapshot, so the mode is decided on exactly the
 * arguments that will execute: a getter answering "read" to the classifier and "write" to the
 * pipeline cannot get a write scheduled in parallel. A call that cannot be read as JSON is left
 * for `execute` to turn into an error result, and is exclusive without asking (S2.2).
 */
function classify(target: SchedulerTarget, call: ToolCall): { snapshot: ToolCall; mode: ToolExecutionMode } {
  let snapshot: ToolCall
  try {
    const { callId, name, arguments: input } = call
    snapshot = { ...(callId !== undefined && { callId }), name, arguments: materializeJson(input === undefined ? {} : input) }
  } catch {
    return { snapshot: call, mode: EXCLUSIVE }
  }
  let mode: ToolExecutionMode
  try {
    mode = target.executionMode(snapshot)
  } catch {
    mode = EXCLUSIVE
  }
  return { snapshot, mode }
}
