/**
 * Text the file tools write must be well-formed Unicode (SPEC S9.6): a JavaScript string may hold
 * a lone UTF-16 surrogate (half of an emoji, say, cut by `slice`), which UTF-8 cannot encode;
 * Node would write U+FFFD (EF BF BD) in its place, changing the file in a way nobody asked for.
 */
import { WorkspaceToolError } from './workspace-tool-error.ts'

/**
 * Refuse `text` holding a lone surrogate; `what` names the argument in the message (`` `new` ``).
 * @throws WorkspaceToolError (`invalid-request`, detail `{ argument, index }`: the UTF-16 index of
 * the first lone surrogate).
 */
export function assertWellFormed(text: string, what: string): void {
  if (text.isWellFormed()) return
  const index = firstLoneSurrogate(text)
  throw new WorkspaceToolError(
    'invalid-request',
    `${what} holds a lone UTF-16 surrogate at index ${index} (half of a character such as an emoji, often cut by slice or substring), which a UTF-8 file cannot hold; nothing was written. Pass whole characters (for example cut text with Array.from(text) instead of slice).`,
    { argument: what.replaceAll('`', ''), index },
  )
}

function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else return i
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return i
  }
  return -1
}
