/**
 * The one way to turn anything thrown into readable text (STYLE: errors). Used wherever a caught
 * value becomes part of a message: pipeline results (S6.5), MCP connection failures, job errors,
 * tool module loading.
 */

import { PtcError } from './ptc-error.ts'

/** Causes followed from an Error's own `cause` (`outer (cause: TypeError: inner (cause: …))`). */
const MAX_CAUSES = 3

/**
 * Readable text for anything thrown, including non-Error values and hostile objects (a revoked
 * Proxy, a getter that throws): an Error's `message` (its `name` when the message is empty), a
 * string as is, anything else as JSON or `String()`. An Error's own `cause` follows in
 * parentheses, up to {@link MAX_CAUSES} deep, each cut at 300 characters (`fetch failed (cause:
 * Error: connect ECONNREFUSED 127.0.0.1:9)`; a cycle is `[Circular]`; a cause that is not an
 * Error or a primitive is said only by its kind), so what the tool wrapped is not lost to the
 * model (S6.5, S9.3). A {@link PtcError}'s message is written complete (what went
 * wrong and what to do); its cause, kept for debugging, is not repeated. Never throws.
 */
export function describeThrown(thrown: unknown): string {
  return describeOne(thrown) + causeOf(thrown, [thrown])
}

function describeOne(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message || thrown.name
    if (typeof thrown === 'string') return thrown
    const text = JSON.stringify(thrown)
    return text === undefined ? String(thrown) : text
  } catch {
    return 'an unprintable value was thrown'
  }
}

/** Characters of one cause's text kept (`…` after): a cause is context, not the message. */
const MAX_CAUSE_CHARS = 300

/**
 * A cause as text: an Error as `name: message`, a string, number, boolean or bigint as itself;
 * anything else only by its kind (`an object`), since a wrapped request or response object can
 * hold credentials and megabytes that must not reach a model.
 */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${describeOne(cause)}`
  if (typeof cause === 'string' || typeof cause === 'number' || typeof cause === 'boolean' || typeof cause === 'bigint') return String(cause)
  return cause === null ? 'null' : `a${typeof cause === 'object' ? 'n object' : ` ${typeof cause}`}`
}

function clip(text: string): string {
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}…` : text
}

/** ` (cause: …)` for an Error with an own `cause`, '' otherwise; `seen` holds the chain so far. */
function causeOf(thrown: unknown, seen: unknown[]): string {
  try {
    if (!(thrown instanceof Error) || !Object.hasOwn(thrown, 'cause') || seen.length > MAX_CAUSES || PtcError.isInstance(thrown)) return ''
  } catch {
    return '' // Not even its prototype can be read (a revoked Proxy): nothing more to say.
  }
  try {
    const cause: unknown = thrown.cause
    if (cause === undefined) return ''
    if (seen.includes(cause)) return ' (cause: [Circular])'
    return ` (cause: ${clip(describeCause(cause))}${causeOf(cause, [...seen, cause])})`
  } catch {
    return ' (cause: unreadable)'
  }
}
