/**
 * The monotonic guards (SPEC S4.1, S12.2): evaluated after every `tools/pre-execute` listener and
 * before the body; they can only deny, so no listener order can turn a guard's denial into an allow.
 */
import { describeThrown } from '../errors/describe-thrown.ts'
import type { ToolExecution, ToolGuard } from '../tools/types.ts'

/**
 * Run `guards` in order on `execution`. Returns the first denial's model-facing reason, or
 * `undefined` when every guard passes. A throwing guard, or one that answers anything but a
 * non-empty string or `undefined`, denies (fail-closed). Never throws.
 */
export function runGuards(guards: Iterable<ToolGuard>, execution: Readonly<ToolExecution>): string | undefined {
  for (const guard of guards) {
    let verdict: unknown
    try {
      verdict = guard(execution)
    } catch (error) {
      verdict = `A guard failed, so the call was denied: ${describeThrown(error)}`
    }
    if (verdict !== undefined) {
      return typeof verdict === 'string' && verdict !== '' ? verdict : 'A guard returned a value that is not a reason; the call was denied.'
    }
  }
  return undefined
}
