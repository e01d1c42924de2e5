/**
 * The sessions list (SPEC S11.6): one row per journal, newest first, in pages: start time, agent
 * or MCP session, runs, calls, failures, and a mark for calls still running.
 */
import * as dom from './dom.ts'
import type { SessionPage, SessionSummary } from './session-summary.ts'

export type { SessionPage, SessionSummary }

/** Draw `page`, `selected` highlighted; `onSelect` on a click, `onPage` for the pager. */
export function renderSessions(page: SessionPage, selected: string | undefined, onSelect: (session: SessionSummary) => void, onPage: (page: number) => void): HTMLElement {
  const rows = page.sessions.map((session) => {
    const row = dom.el(
      'li',
      { class: `session-row${session.id === selected ? ' selected' : ''}${session.failures > 0 ? ' has-failures' : ''}`, 'data-session': session.id, tabindex: '0', role: 'button' },
      dom.el('div', { class: 'row-time' }, localTime(session.time), session.running > 0 ? dom.el('span', { class: 'row-running', title: 'calls running' }, ' ●') : null),
      dom.el('div', { class: 'row-agent' }, session.mcpSession ? `MCP ${session.mcpSession}` : (session.agent ?? '(no calls yet)')),
      dom.el(
        'div',
        { class: 'row-counts' },
        `${session.runs} run${session.runs === 1 ? '' : 's'} · ${session.calls} call${session.calls === 1 ? '' : 's'}`,
        session.failures > 0 ? dom.el('span', { class: 'row-failures' }, ` · ${session.failures} failed`) : null,
      ),
    )
    row.addEventListener('click', () => onSelect(session))
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') onSelect(session)
    })
    return row
  })
  const pager = dom.el(
    'nav',
    { class: 'pager' },
    dom.button('← newer', () => onPage(page.page - 1), { disabled: page.page <= 1 }),
    ` page ${page.page} of ${page.pages} (${page.total}) `,
    dom.button('older →', () => onPage(page.page + 1), { disabled: page.page >= page.pages }),
  )
  return dom.el('div', { class: 'sessions' }, rows.length ? dom.el('ul', { class: 'session-rows' }, ...rows) : dom.el('p', { class: 'empty' }, 'No journals in .ptc/journal/ yet. Run ptc run or ptc serve in this workspace.'), pager)
}

/** `2026-12-01 08:12:00` in the browser's time zone. */
export function localTime(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}
