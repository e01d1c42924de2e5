/**
 * The id of a JSON-RPC request read from the start and end of its line, for a line too long to
 * read whole (MCP over stdio, `line-buffer.ts`): its error answer then carries the request's id
 * (JSON-RPC 2.0 §5, "id … MUST be the same as the value of the id member in the Request"), so
 * the client's call ends with the error instead of waiting for an answer no one will send. An
 * operator's trial sent an 11 MiB `tools/call` and its SDK call waited 90 s for its own timeout.
 */

/** Bytes of a line's start, and of its end, kept for {@link requestIdOf}. */
export const HEAD_BYTES = 4096

/**
 * The id of the request a too-long line holds, from its start (`head`) and end (`tail`): the
 * line must be a request (a top-level `"method"` among the members its start shows, and no
 * `"result"` or `"error"`: an answer is never answered, JSON-RPC 2.0 §5), and its top-level `"id"`
 * (a string or a number) whole in the start, or the line's last member. The TypeScript SDK writes
 * `{"method":…,"params":…,"jsonrpc":"2.0","id":5}` (id last), the Python SDK id first. Otherwise
 * `null`. Never throws.
 */
export function requestIdOf(head: string, tail: string): string | number | null {
  const members = topLevelMembers(head)
  if (!members.names.has('method') || members.names.has('result') || members.names.has('error')) return null
  if (members.id !== undefined) return members.id
  const last = LAST_ID.exec(tail)?.[1]
  return last === undefined ? null : usableId(parsed(last))
}

/** `"id": <number or string>` closing the line's object (what a line ends with when its last member is the id). */
const LAST_ID = /"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/

/** The names of the top-level members of the JSON object `text` starts, while they are whole, and its `"id"` when one of them. */
function topLevelMembers(text: string): { names: Set<string>; id: string | number | undefined } {
  const names = new Set<string>()
  let id: string | number | undefined
  let at = skipSpace(text, 0)
  if (text[at] !== '{') return { names, id }
  at = skipSpace(text, at + 1)
  while (text[at] === '"') {
    const key = stringEnd(text, at)
    if (key < 0) break
    const name = parsed(text.slice(at, key))
    at = skipSpace(text, key)
    if (text[at] !== ':' || typeof name !== 'string') break
    names.add(name)
    at = skipSpace(text, at + 1)
    const end = valueEnd(text, at)
    if (end < 0) break
    if (name === 'id') id = usableId(parsed(text.slice(at, end))) ?? undefined
    at = skipSpace(text, end)
    if (text[at] !== ',') break
    at = skipSpace(text, at + 1)
  }
  return { names, id }
}

function usableId(value: unknown): string | number | null {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null
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
