/**
 * The id of a JSON-RPC request read from the start of its line, for a line too long to read
 * whole (MCP over stdio, `line-buffer.ts`): its error answer then carries the request's id
 * (JSON-RPC 2.0 §5, "id … MUST be the same as the value of the id member in the Request"), so
 * the client's call ends with the error instead of waiting for an answer no one will send. An
 * operator's trial sent an 11 MiB `tools/call` and its SDK call waited 90 s for its own timeout.
 */

/** Bytes of a line's start kept for {@link idFromHead}: SDKs write `jsonrpc` and `id` first. */
export const HEAD_BYTES = 4096

/**
 * The top-level `"id"` member of the JSON object `text` starts (a string or a number), when the
 * members before it and the id itself are whole in `text`; otherwise `null`. Never throws.
 */
export function idFromHead(text: string): string | number | null {
  let at = skipSpace(text, 0)
  if (text[at] !== '{') return null
  at = skipSpace(text, at + 1)
  while (text[at] === '"') {
    const key = stringEnd(text, at)
    if (key < 0) return null
    const name = parsed(text.slice(at, key))
    at = skipSpace(text, key)
    if (text[at] !== ':') return null
    at = skipSpace(text, at + 1)
    const end = valueEnd(text, at)
    if (end < 0) return null
    if (name === 'id') {
      const id = parsed(text.slice(at, end))
      return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
    }
    at = skipSpace(text, end)
    if (text[at] !== ',') return null
    at = skipSpace(text, at + 1)
  }
  return null
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at++
  return at
}

/** The index after the string starting at `at` (a `"`), or -1 when it does not end in `text`. */
function stringEnd(text: string, at: number): number {
  for (let index = at + 1; index < text.length; index++) {
    if (text[index] === '\\') index++
    else if (text[index] === '"') return index + 1
  }
  return -1
}

/**
 * The index after the value starting at `at`, or -1 when it does not end in `text`. A number
 * or literal ends only where something follows it, so one cut at the end of `text` (`12` of
 * `123`) is not taken for whole.
 */
function valueEnd(text: string, at: number): number {
  const first = text[at]
  if (first === '"') return stringEnd(text, at)
  if (first === '{' || first === '[') {
    let depth = 0
    for (let index = at; index < text.length; index++) {
      const char = text[index]
      if (char === '"') {
        index = stringEnd(text, index) - 1
        if (index < 0) return -1
      } else if (char === '{' || char === '[') depth++
      else if (char === '}' || char === ']') {
        depth--
        if (depth === 0) return index + 1
      }
    }
    return -1
  }
  let index = at
  while (index < text.length && !/[\s,}\]]/.test(text[index]!)) index++
  return index === at || index === text.length ? -1 : index
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    return undefined
  }
}
