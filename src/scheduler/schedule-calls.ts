/**
 * Scheduling of one turn's tool calls (SPEC S7): each call is admitted through an
 * {@link ExecutionGate} with its execution mode, so parallel-safe neighbours overlap in a rolling
 * pool and exclusive calls form barriers. Results come back in call order (S7.2).
 */
import type { ExecuteOptions, ToolCall, ToolExecutionMode, ToolResult } from '../tools/types.ts'
import { ExecutionGate } from './execution-gate.ts'

/** What the scheduler needs: the registry (`ctx.tools`) satisfies it. */
export interface SchedulerTarget {
  executionMode(call: ToolCall): ToolExecutionMode
  execute(call: ToolCall, options?: ExecuteOptions): Promise<ToolResult>
}

/** Options: `concurrency` is the width of the rolling pool for parallel calls (default 8). */
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
  return Promise.all(calls.map((call) => gate.run(target.executionMode(call), () => target.execute(call, execute))))
}
