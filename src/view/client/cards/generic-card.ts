/**
 * The generic card (S11.1): the files a call names and the content the model read, as text. An
 * error's message is in the call's header already, so a failed call shows only its location.
 */
import type { CardComponent } from '../slots.ts'
import { argumentsOf, type CallNode } from '../timeline.ts'

export const genericCard: CardComponent = {
  render(node: CallNode, dom) {
    const result = node.result
    const path = (argumentsOf(node) as { path?: unknown } | undefined)?.path
    const location = typeof path === 'string' ? dom.el('div', { class: 'card-location' }, path) : null
    if (!result || result.isError === true) return location
    return dom.el('div', null, location, dom.el('pre', { class: 'card-text' }, contentText(result.content)))
  },
}

/** The text of content blocks; other blocks as `[type]`. */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return ''
  return content.map((block) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block?.type)}]`)).join('\n')
}
