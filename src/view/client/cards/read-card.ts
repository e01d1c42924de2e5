/** The read card (S11.1, completed only, S11.2): numbered lines of the file read. */
import type { CardComponent } from '../slots.ts'

/** Most lines drawn; the rest is in the raw details. */
const MAX_LINES = 400

export const readCard: CardComponent = {
  render(node, dom) {
    const value = node.result?.value as { path?: unknown; text?: unknown; startLine?: unknown; totalLines?: unknown } | undefined
    if (typeof value?.path !== 'string' || typeof value.text !== 'string') return null
    const start = typeof value.startLine === 'number' ? value.startLine : 1
    const lines = value.text.split('\n')
    const body = dom.el('pre', { class: 'card-read' })
    lines.slice(0, MAX_LINES).forEach((line, index) => dom.append(body, dom.el('span', { class: 'line-number' }, String(start + index).padStart(5)), ` ${line}\n`))
    const more = lines.length > MAX_LINES ? dom.el('div', { class: 'card-meta' }, `… ${lines.length - MAX_LINES} more lines`) : null
    return dom.el('div', null, dom.el('div', { class: 'card-location' }, value.path, typeof value.totalLines === 'number' ? `  (${value.totalLines} lines)` : ''), body, more)
  },
}
