/** The search card (S11.1, completed only): matches grouped by file, or a flat path list. */
import type { CardComponent } from '../slots.ts'
import { argumentsOf } from '../timeline.ts'

/** Most files or paths drawn; the rest is in the raw details. */
const MAX_ITEMS = 200

export const searchCard: CardComponent = {
  render(node, dom) {
    const args = (argumentsOf(node) ?? {}) as { pattern?: unknown; path?: unknown }
    const value = node.result?.value as { files?: unknown; paths?: unknown; entries?: unknown } | undefined
    if (!value) return null
    const query = dom.el('div', { class: 'card-location' }, typeof args.pattern === 'string' ? args.pattern : typeof args.path === 'string' ? args.path : '')
    const list = dom.el('ul', { class: 'card-search' })
    if (Array.isArray(value.files)) {
      for (const file of value.files.slice(0, MAX_ITEMS) as { path?: unknown; matches?: { line?: unknown; text?: unknown }[] }[]) {
        const matches = dom.el('pre', { class: 'search-matches' })
        for (const match of Array.isArray(file?.matches) ? file.matches.slice(0, 50) : []) dom.append(matches, dom.el('span', { class: 'line-number' }, String(match?.line).padStart(5)), ` ${String(match?.text)}\n`)
        dom.append(list, dom.el('li', null, dom.el('span', { class: 'search-path' }, String(file?.path)), matches))
      }
    } else if (Array.isArray(value.paths)) {
      for (const path of value.paths.slice(0, MAX_ITEMS)) dom.append(list, dom.el('li', null, String(path)))
    } else if (Array.isArray(value.entries)) {
      for (const entry of value.entries.slice(0, MAX_ITEMS) as { name?: unknown; type?: unknown }[]) dom.append(list, dom.el('li', null, `${String(entry?.name)}${entry?.type === 'directory' ? '/' : ''}`))
    } else return null
    return dom.el('div', null, query, list)
  },
}
