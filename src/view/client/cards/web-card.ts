/**
 * The web card (S11.1, completed only): a web search or fetch. The URL is shown as text, never as
 * a link: a journal's `javascript:` URL must not become something to click.
 */
import type { CardComponent } from '../slots.ts'
import { argumentsOf } from '../timeline.ts'
import { contentText } from './generic-card.ts'

export const webCard: CardComponent = {
  render(node, dom) {
    const args = (argumentsOf(node) ?? {}) as { url?: unknown; query?: unknown }
    const value = node.result?.value as { title?: unknown; url?: unknown } | undefined
    const url = typeof args.url === 'string' ? args.url : typeof value?.url === 'string' ? value.url : undefined
    const query = typeof args.query === 'string' ? args.query : undefined
    if (url === undefined && query === undefined) return null
    return dom.el(
      'div',
      { class: 'card-web' },
      dom.el('div', { class: 'card-location' }, url !== undefined ? `fetch ${url}` : `search “${query}”`),
      typeof value?.title === 'string' ? dom.el('div', { class: 'web-title' }, value.title) : null,
      node.result && node.result.isError !== true ? dom.el('pre', { class: 'card-text' }, contentText(node.result.content).slice(0, 4000)) : null,
    )
  },
}
