/** The diff card (S11.1): the hunks of a created or modified file, lines marked + and -. */
import type { CardComponent } from '../slots.ts'
import { argumentsOf } from '../timeline.ts'

interface Hunk {
  oldStart: number
  oldLines: number
  newStart: number
  newLines: number
  lines: string[]
}

export const diffCard: CardComponent = {
  render(node, dom) {
    const value = node.result?.value as { path?: unknown; created?: unknown; hunks?: unknown; linesAdded?: unknown; linesRemoved?: unknown } | undefined
    const path = value?.path ?? (argumentsOf(node) as { path?: unknown } | undefined)?.path
    if (typeof path !== 'string') return null
    const head = dom.el('div', { class: 'card-location' }, path, value?.created === true ? ' (new file)' : '', typeof value?.linesAdded === 'number' ? `  +${value.linesAdded} −${String(value.linesRemoved)}` : '')
    if (!Array.isArray(value?.hunks)) return head
    const lines = dom.el('pre', { class: 'card-diff' })
    for (const hunk of value.hunks as Hunk[]) {
      if (!Array.isArray(hunk?.lines)) continue
      dom.append(lines, dom.el('span', { class: 'diff-hunk' }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`))
      for (const line of hunk.lines) {
        const text = String(line)
        const kind = text.startsWith('+') ? 'diff-add' : text.startsWith('-') ? 'diff-del' : 'diff-ctx'
        dom.append(lines, dom.el('span', { class: kind }, `${text}\n`))
      }
    }
    return dom.el('div', null, head, lines)
  },
}
