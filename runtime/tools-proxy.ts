/**
 * The proxy handler of the script's `tools` global (SPEC S9.1): a name that is not a tool
 * throws a `ToolCallError` that says so and lists the closest tool names (`unknown-tool.ts`).
 * Follows `intrinsics.ts`'s rules: null-prototype, frozen records only.
 */
import { defineData, ObjectCreate, ObjectFreeze, ObjectHasOwn } from './intrinsics.ts'
import { ToolCallError } from './tool-call-error.ts'
import { unknownToolMessage } from './unknown-tool.ts'

/**
 * Names `tools` answers for although they are not tools: the probes of `await tools` (`then`)
 * and `JSON.stringify(tools)` / `console.log(tools)` (`toJSON`). They read as absent.
 */
const PROBED_NAMES = ObjectCreate(null) as Record<string, true>
PROBED_NAMES.then = true
PROBED_NAMES.toJSON = true

/**
 * The proxy handler of `tools`: reading a name that is not a tool throws a `ToolCallError` (SPEC
 * S9.3: `toolName` is the name used, so `catch (e) { if (e instanceof ToolCallError) … }` sees it
 * like any failed call) whose message says so, `There is no tool named 'raed_file'. …`, with the
 * closest tool names (`runtime/unknown-tool.ts`, the type check's wording), instead of
 * `tools.raed_file is not a function` at the call. Symbols and own names read through; `in`,
 * `Object.keys` and the rest see the frozen object itself. A null-prototype, frozen handler: a
 * trap put on `Object.prototype` by the script is never consulted.
 */
export function unknownToolTrap(names: readonly string[]): ProxyHandler<object> {
  const handler = ObjectCreate(null) as ProxyHandler<object>
  defineData(
    handler,
    'get',
    function get(target: Record<PropertyKey, unknown>, key: PropertyKey): unknown {
      if (typeof key !== 'string' || ObjectHasOwn(target, key) || PROBED_NAMES[key] === true) return target[key]
      throw new ToolCallError(key, unknownToolMessage(key, names))
    },
    0,
  )
  return ObjectFreeze(handler)
}
