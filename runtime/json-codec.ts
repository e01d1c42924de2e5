/**
 * Describing what a script threw, and the `{ name, message }` JSON the runtime reports errors
 * with. Uses only captured built-ins (see `intrinsics.ts`); lossless JSON of values is in
 * `lossless-json.ts`.
 */
import { JSONStringify, ObjectCreate, ObjectHasOwn, StringPrototypeSlice } from './intrinsics.ts'
import { formatLogValue } from './log-format.ts'

const MAX_MESSAGE_LENGTH = 2_000
/** Enough of a stack for its first script frames behind a long message. */
const MAX_STACK_LENGTH = 6_000

/** Causes followed in a description (`new Error(m, { cause })` chains). */
const MAX_CAUSES = 3
/** An error's own message is cut to this when it has a cause, so the cause still fits. */
const MAX_MESSAGE_BEFORE_CAUSE = 1_200
/** What a cause's description may take. */
const MAX_CAUSE_LENGTH = 700

/**
 * A readable one-line description of any thrown value; never throws (getters may). An Error is
 * its `name` and `message`; anything else is written as the script's console writes it
 * (`log-format.ts`: `10n`, `a thrown non-Error value: {"code":7}`). An error's own `cause` is
 * appended, `(cause: ToolCallError: …)`, up to {@link MAX_CAUSES} deep (`[Circular]` for one
 * already in the chain), so a script that rethrows a tool's failure wrapped in its own error
 * still reports the tool's words.
 */
export function describeThrown(thrown: unknown): { name: string; message: string } {
  return describeIn(thrown, ObjectCreate(null) as Record<number, unknown>, 0)
}

/** {@link describeThrown} of the `depth`-th link of a cause chain (`chain`: the links before it). */
function describeIn(thrown: unknown, chain: Record<number, unknown>, depth: number): { name: string; message: string } {
  let name = 'Error'
  let message = ''
  try {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      const candidateName = (thrown as { name?: unknown }).name
      const candidateMessage = (thrown as { message?: unknown }).message
      if (typeof candidateName === 'string' && candidateName !== '') name = candidateName
      // An error whose message is no string (`e.message = { a: 1 }`) keeps it, as the console writes it.
      if (typeof candidateMessage === 'string') message = candidateMessage
      else if (candidateMessage !== undefined) message = formatLogValue(candidateMessage, MAX_MESSAGE_LENGTH)
      else message = `a thrown non-Error value: ${formatLogValue(thrown, MAX_MESSAGE_LENGTH)}`
      if (depth < MAX_CAUSES && ObjectHasOwn(thrown, 'cause')) {
        chain[depth] = thrown
        message = `${clip(message, MAX_MESSAGE_BEFORE_CAUSE)} (cause: ${clip(describeCause(thrown, chain, depth + 1), MAX_CAUSE_LENGTH)})`
      }
    } else {
      message = typeof thrown === 'string' ? thrown : formatLogValue(thrown, MAX_MESSAGE_LENGTH)
    }
  } catch {
    // A getter threw: an Error's `name` or `message`, a Proxy's trap.
    message = message || 'a thrown value whose name or message could not be read (a getter threw)'
  }
  return { name: clip(name, 100), message: clip(message, MAX_MESSAGE_LENGTH) }
}

/** The cause of `holder` (the `depth`-th link): an Error as `Name: message`, anything else as the console writes it. */
function describeCause(holder: object, chain: Record<number, unknown>, depth: number): string {
  let cause: unknown
  try {
    cause = (holder as { cause?: unknown }).cause
  } catch (thrown) {
    return `[getter threw ${describeWithoutCause(thrown)}]`
  }
  for (let index = 0; index < depth; index++) if (chain[index] === cause) return '[Circular]'
  if (typeof cause === 'string') return JSONStringify(cause)
  try {
    if (((typeof cause === 'object' && cause !== null) || typeof cause === 'function') && typeof (cause as { message?: unknown }).message === 'string') {
      const { name, message } = describeIn(cause, chain, depth)
      return `${name}: ${message}`
    }
    return formatLogValue(cause, MAX_CAUSE_LENGTH)
  } catch (thrown) {
    // Its `message` getter or a proxy trap threw: said, not dropped.
    return `[unreadable: ${describeWithoutCause(thrown)}]`
  }
}

/** `Name: message` of what a cause's getter threw, its own causes not followed. */
function describeWithoutCause(thrown: unknown): string {
  const { name, message } = describeIn(thrown, ObjectCreate(null) as Record<number, unknown>, MAX_CAUSES)
  return `${name}: ${message}`
}

/**
 * Nesting the host refuses in a value (`MAX_JSON_DEPTH` of `src/pipeline/materialize.ts`, which
 * runtime/ cannot import): named when a return value is too deep for the isolate's stack.
 */
const MAX_JSON_DEPTH = 256

/**
 * Why a value could not be converted to JSON, from what the conversion threw: V8's stack overflow
 * is said as such, with what to do; anything else is its message. The conversion runs the value's
 * getters and `toJSON`, so a stack overflow is either nesting or one of those recursing without
 * end. Tool `arguments` are converted where the script makes the call, so its own recursion may
 * be to blame too; the `return value` is converted from the runtime's shallow stack, so not that.
 */
export function describeConversionError(error: unknown, of: 'arguments' | 'return value'): string {
  const { name, message } = describeThrown(error)
  if (name === 'RangeError' && message === 'Maximum call stack size exceeded') {
    if (of === 'return value') return `the call stack ran out while converting it: either it is nested too deeply (deeper than ${MAX_JSON_DEPTH} levels: send a flatter value, a list instead of a chain of nested objects) or a getter or toJSON in it recurses without end`
    return "the call stack ran out while converting it: either the value is nested too deeply (send a flatter value, e.g. a list instead of a chain of nested objects) or the script's own recursion had nearly filled the stack when it made the call (make the call from a shallower point)"
  }
  return message
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
