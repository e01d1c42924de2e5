/**
 * `ToolCallError`: what a failed `await tools.x(args)` rejects with inside the isolate
 * (SPEC S9.3). A script can read exactly `name` ('ToolCallError'), `toolName` and a readable
 * `message`; no internal code, no host object. It is a real `Error` (`instanceof Error` and
 * `instanceof ToolCallError` hold) and its three fields are read-only and enumerable, so
 * `JSON.stringify(error)` shows them.
 */
import { defineData, ENUMERABLE, ObjectFreeze, ObjectGetPrototypeOf, ObjectHasOwn, OriginalError } from './intrinsics.ts'

export class ToolCallError extends OriginalError {
  declare readonly name: 'ToolCallError'
  declare readonly toolName: string

  constructor(toolName: string, message: string) {
    // No message argument: the three fields are defined here, in this order, as own enumerable data.
    super()
    defineData(this, 'name', 'ToolCallError', ENUMERABLE)
    // Strings whatever a script passes (`new ToolCallError('oops')` unchecked): message '' then.
    defineData(this, 'toolName', String(toolName), ENUMERABLE)
    defineData(this, 'message', message === undefined ? '' : String(message), ENUMERABLE)
  }
}

ObjectFreeze(ToolCallError.prototype)
ObjectFreeze(ToolCallError)

/**
 * The tool of a `ToolCallError` (its own `toolName`), `''` for any other value: an uncaught one
 * is reported with the tool whose call failed (issue 11). Never throws.
 */
export function toolNameOf(value: unknown): string {
  try {
    // By prototype identity, not `instanceof`, whose Symbol.hasInstance a script can replace on Error.
    if (typeof value === 'object' && value !== null && ObjectGetPrototypeOf(value) === ToolCallError.prototype && ObjectHasOwn(value, 'toolName')) {
      const toolName = (value as { toolName?: unknown }).toolName
      if (typeof toolName === 'string') return toolName
    }
  } catch {
    // A proxy's trap threw: no tool name.
  }
  return ''
}
