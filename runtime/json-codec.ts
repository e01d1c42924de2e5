/**
 * Describing what a script threw, and the `{ name, message }` JSON the runtime reports errors
 * with. Uses only captured built-ins (see `intrinsics.ts`); lossless JSON of values is in
 * `lossless-json.ts`.
 */
import { JSONStringify, ObjectCreate, ObjectHasOwn, StringCtor, StringPrototypeSlice } from './intrinsics.ts'

const MAX_MESSAGE_LENGTH = 2_000
/** Enough of a stack for its first script frames behind a long message. */
const MAX_STACK_LENGTH = 6_000

/** Causes followed in a description (`new Error(m, { cause })` chains). */
const MAX_CAUSES = 3

/**
 * A readable one-line description of any thrown value; never throws (getters may). An error's
 * own `cause` is appended, `(cause: ToolCallError: …)`, up to {@link MAX_CAUSES} deep, so a
 * script that rethrows a tool's failure wrapped in its own error still reports the tool's words.
 */
export function describeThrown(thrown: unknown, causes = 0): { name: string; message: string } {
  let name = 'Error'
  let message = ''
  try {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      const candidateName = (thrown as { name?: unknown }).name
      const candidateMessage = (thrown as { message?: unknown }).message
      if (typeof candidateName === 'string' && candidateName !== '') name = candidateName
      message = typeof candidateMessage === 'string' ? candidateMessage : describePlainThrown(thrown)
      if (causes < MAX_CAUSES && ObjectHasOwn(thrown, 'cause')) {
        const cause = (thrown as { cause?: unknown }).cause
        if ((typeof cause === 'object' && cause !== null) || typeof cause === 'function') {
          const described = describeThrown(cause, causes + 1)
          message += ` (cause: ${described.name}: ${described.message})`
        } else {
          message += ` (cause: ${typeof cause === 'string' ? JSONStringify(cause) : StringCtor(cause)})`
        }
      }
    } else {
      message = StringCtor(thrown)
    }
  } catch {
    message = message || 'a value that could not be described'
  }
  return { name: clip(name, 100), message: clip(message, MAX_MESSAGE_LENGTH) }
}

/**
 * Why a value could not be converted to JSON, from what the conversion threw: V8's stack overflow
 * on a deeply nested value is said as such, with what to do; anything else is its message.
 */
export function describeConversionError(error: unknown): string {
  const { name, message } = describeThrown(error)
  if (name === 'RangeError' && message === 'Maximum call stack size exceeded') {
    return 'it is nested too deeply to convert (the call stack ran out); send a flatter value, e.g. a list instead of a chain of nested objects'
  }
  return message
}

/**
 * A thrown object with no string `message` (`throw { code: 7 }`): its JSON, so the model reads
 * what was thrown instead of `[object Object]`, else `String()` of it. May throw (getters).
 */
function describePlainThrown(thrown: object): string {
  let json: string | undefined
  try {
    json = JSONStringify(thrown)
  } catch {
    // Cycles, BigInt, a throwing toJSON: String() below.
  }
  return typeof json === 'string' && json !== '{}' ? `a thrown non-Error value: ${json}` : StringCtor(thrown)
}

/**
 * The V8 stack text of a thrown error, or `''`: read only when `stack` is the value's own
 * property (every `Error` has it), so no accessor a script put on a prototype runs. The host
 * parses the script's frames out of it (issue 11). Never throws.
 */
export function describeStack(thrown: unknown): string {
  try {
    if (((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') && ObjectHasOwn(thrown, 'stack')) {
      const stack = (thrown as { stack?: unknown }).stack
      if (typeof stack === 'string') return clip(stack, MAX_STACK_LENGTH)
    }
  } catch {
    // A throwing own getter: no stack.
  }
  return ''
}

/**
 * JSON of `{ name, message }` (and `stack`, `toolName` when not empty), built on a
 * null-prototype object so no `toJSON` is inherited.
 */
export function errorJson(name: string, message: string, stack = '', toolName = ''): string {
  const record = ObjectCreate(null) as { name: string; message: string; stack?: string; toolName?: string }
  record.name = name
  record.message = message
  if (stack !== '') record.stack = stack
  if (toolName !== '') record.toolName = clip(toolName, 200)
  return JSONStringify(record)
}

export function clip(text: string, max: number): string {
  return text.length > max ? StringPrototypeSlice(text, 0, max) + '…' : text
}
