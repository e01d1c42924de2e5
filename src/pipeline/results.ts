/**
 * Normalization of results (SPEC S6.4, S6.5): every outcome, success or failure, becomes one
 * deep-frozen `ToolResult` with model-facing content. Nothing here throws.
 */
import type { ContentBlock, JsonValue, ToolErrorKind } from '../tools/types.ts'

/** The canonical cancellation message (S5.1): a cancel is not presented as a policy denial. */
export const CANCELLED_MESSAGE = 'The tool call was cancelled before it finished; what it had already done stands (for run_code: the tool calls its script had made), and nothing more was done.'
/** The cancellation of a call cancelled before its tool started (a policy's `cancel`, a caller already stopped): nothing was done. */
export const CANCELLED_BEFORE_START_MESSAGE = 'The tool call was cancelled before it started; nothing was done.'

/** Error detail carried on an `isError` result. */
export interface ResultError {
  kind: ToolErrorKind
  message: string
  info?: JsonValue
}

/**
 * Check that `blocks` is an array of well-formed content blocks and copy them into a fresh frozen
 * array of fresh frozen objects (so a render function cannot keep a handle that mutates the result
 * later, and a post-execute listener can change content only through its decision, S5.4).
 * @throws TypeError describing the first malformed block.
 */
export function normalizeContent(blocks: unknown, where: string): readonly ContentBlock[] {
  if (!Array.isArray(blocks)) throw new TypeError(`${where} must return an array of content blocks, got ${typeof blocks}`)
  return Object.freeze(blocks.map((block, index) => {
    const b = block as Record<string, unknown> | null
    if (b && b.type === 'text' && typeof b.text === 'string') return Object.freeze({ type: 'text' as const, text: b.text })
    if (b && b.type === 'image' && typeof b.data === 'string' && typeof b.mimeType === 'string') {
      return Object.freeze({ type: 'image' as const, data: b.data, mimeType: b.mimeType })
    }
    throw new TypeError(`${where} returned a malformed content block at index ${index}; expected {type:'text', text} or {type:'image', data, mimeType}`)
  }))
}

/** Model-facing content of an error result. */
export function errorContent(error: ResultError): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text: error.kind === 'cancelled' ? error.message : `Error: ${error.message}` })])
}
