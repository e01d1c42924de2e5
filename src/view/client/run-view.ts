/**
 * The parts of a `run_code` run: its script, syntax-highlighted with line numbers, and (once it
 * ends, drawn below the calls it made) status, tool call count and duration, the result, the
 * logs, the error and the type diagnostics, all as text.
 */
import * as dom from './dom.ts'
import { highlight } from './highlight.ts'
import type { CallNode } from './timeline.ts'

/** Draw the run's script, folded open. */
export function renderScript(node: CallNode): HTMLElement {
  const code = (node.call?.arguments ?? node.result?.arguments) as { code?: unknown } | undefined
  return dom.el('div', { class: 'call-body' }, dom.details('script', true, typeof code?.code === 'string' ? script(code.code) : dom.jsonBlock(code ?? null)))
}

/** Draw what the run ended with; empty while it runs. */
export function renderRunOutcome(node: CallNode): HTMLElement {
  const value = node.result?.value as
    | { status?: unknown; value?: unknown; error?: { name?: unknown; message?: unknown }; logs?: unknown; toolCalls?: unknown; durationMs?: unknown; diagnostics?: unknown }
    | undefined
  const parts: dom.Child[] = []
  if (value) {
    parts.push(
      dom.el(
        'div',
        { class: 'run-stats' },
        `status ${String(value.status)}`,
        typeof value.toolCalls === 'number' ? ` · ${value.toolCalls} tool call${value.toolCalls === 1 ? '' : 's'}` : '',
        typeof value.durationMs === 'number' ? ` · ${dom.formatDuration(value.durationMs)} in the isolate` : '',
      ),
    )
    if (value.error) parts.push(dom.el('pre', { class: 'card-error' }, `${String(value.error.name)}: ${String(value.error.message)}`))
    if (Array.isArray(value.diagnostics) && value.diagnostics.length > 0) {
      const lines = value.diagnostics.map((d: { line?: unknown; column?: unknown; category?: unknown; message?: unknown }) => `${String(d?.line)}:${String(d?.column)} ${String(d?.category)}: ${String(d?.message)}`)
      parts.push(dom.el('h4', null, 'diagnostics'), dom.el('pre', { class: 'card-error' }, lines.join('\n')))
    }
    if ('value' in value) parts.push(dom.el('h4', null, 'result'), dom.jsonBlock(value.value, 'json run-result'))
    if (Array.isArray(value.logs) && value.logs.length > 0) {
      const logs = dom.el('pre', { class: 'run-logs' })
      for (const entry of value.logs as { level?: unknown; text?: unknown }[]) {
        dom.append(logs, dom.el('span', { class: `log-${String(entry?.level)}` }, `${entry?.level === 'log' ? '' : `[${String(entry?.level)}] `}${String(entry?.text)}\n`))
      }
      parts.push(dom.el('h4', null, 'logs'), logs)
    }
  } else if (node.result?.isError === true) {
    parts.push(dom.el('pre', { class: 'card-error' }, String((node.result.error as { message?: unknown } | undefined)?.message ?? 'failed')))
  }
  return dom.el('div', { class: 'run-outcome' }, ...parts)
}

/** The script as numbered, highlighted lines. */
export function script(source: string): HTMLElement {
  const block = dom.el('pre', { class: 'script' })
  let line = dom.el('span', { class: 'script-line' })
  block.append(line)
  for (const token of highlight(source)) {
    const pieces = token.text.split('\n')
    pieces.forEach((piece, index) => {
      if (index > 0) {
        line = dom.el('span', { class: 'script-line' })
        block.append('\n', line)
      }
      if (piece !== '') line.append(token.kind === 'plain' ? document.createTextNode(piece) : dom.el('span', { class: `tok-${token.kind}` }, piece))
    })
  }
  return block
}
