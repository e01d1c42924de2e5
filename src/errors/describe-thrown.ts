/**
 * The one way to turn anything thrown into readable text (STYLE: errors). Used wherever a caught
 * value becomes part of a message: pipeline results (S6.5), MCP connection failures, job errors,
 * tool module loading.
 */

/**
 * Readable text for anything thrown, including non-Error values and hostile objects (a revoked
 * Proxy, a getter that throws): an Error's `message` (its `name` when the message is empty), a
 * string as is, anything else as JSON or `String()`. Never throws.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message || thrown.name
    if (typeof thrown === 'string') return thrown
    const text = JSON.stringify(thrown)
    return text === undefined ? String(thrown) : text
  } catch {
    return 'an unprintable value was thrown'
  }
}
