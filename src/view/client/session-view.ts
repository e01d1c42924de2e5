/**
 * One session as a live timeline (SPEC S11.6): its journal is read with `page` from the start,
 * then `follow`ed, and every record goes through the {@link Timeline} into its {@link CallView},
 * so calls appear as they start and change as they complete, with no reload.
 */
import { follow, getJson, sessionPath, type RecordPage } from './api.ts'
import { CallView } from './call-view.ts'
import * as dom from './dom.ts'
import { jobOf, outcomeOf, Timeline, type CallNode } from './timeline.ts'

/** What the list knows of a session. */
export interface SessionInfo {
  id: string
  time: string
  agent?: string
  mcpSession?: string
}

export class SessionView {
  readonly element: HTMLElement
  private readonly timeline = new Timeline()
  private readonly views = new Map<CallNode, CallView>()
  private readonly calls = dom.el('div', { class: 'calls' })
  private readonly stats = dom.el('span', { class: 'session-stats' })
  private readonly state = dom.el('span', { class: 'session-state', 'data-role': 'state' }, 'loading…')
  private readonly notes = dom.el('ul', { class: 'notes' })
  private readonly empty = dom.el('p', { class: 'empty' }, 'No calls in this session yet.')
  private readonly title: HTMLElement
  private readonly mcp: HTMLElement
  private readonly stop = new AbortController()
  private readonly info: SessionInfo

  constructor(info: SessionInfo) {
    this.info = info
    this.title = dom.el('h2', null, info.agent ?? 'session')
    this.mcp = dom.el('span', { class: 'session-mcp' }, info.mcpSession ? `MCP session ${info.mcpSession}` : '')
    this.element = dom.el(
      'section',
      { class: 'session', 'data-session': info.id },
      dom.el(
        'header',
        { class: 'session-head' },
        this.title,
        this.mcp,
        dom.el('span', { class: 'session-file' }, info.id),
        this.stats,
        this.state,
      ),
      this.notes,
      this.empty,
      this.calls,
    )
  }

  /** Load the journal with `page`, then follow it until {@link dispose}. */
  async start(): Promise<void> {
    let offset = 0
    try {
      for (;;) {
        const page = await getJson<RecordPage>(sessionPath(this.info.id, 'page', offset))
        if (this.stop.signal.aborted) return
        this.addPage(page)
        if (page.next === offset) break
        offset = page.next
      }
    } catch (error) {
      this.state.textContent = `could not load: ${(error as Error).message}`
      return
    }
    void follow(this.info.id, offset, (page) => this.addPage(page), (state) => (this.state.textContent = state === 'live' ? '● live' : 'reconnecting…'), this.stop.signal)
  }

  /** Stop following. */
  dispose(): void {
    this.stop.abort()
  }

  private addPage(page: RecordPage): void {
    for (const record of page.records) {
      const node = this.timeline.add(record)
      if (node) this.show(node)
      const { agent, session } = (record ?? {}) as { agent?: unknown; session?: unknown }
      if (this.info.agent === undefined && typeof agent === 'string') this.title.textContent = this.info.agent = agent
      if (this.info.mcpSession === undefined && typeof session === 'string') this.mcp.textContent = `MCP session ${(this.info.mcpSession = session)}`
    }
    this.notes.replaceChildren(...this.timeline.notes.map((note) => dom.el('li', null, note)))
    this.empty.hidden = this.timeline.roots.length > 0
    const nodes = [...this.timeline.byId.values()]
    const runs = nodes.filter((node) => node.name === 'run_code').length
    const failures = nodes.filter((node) => !['ok', 'running'].includes(outcomeOf(node))).length
    const running = nodes.filter((node) => outcomeOf(node) === 'running').length
    this.stats.textContent = `${runs} run${runs === 1 ? '' : 's'} · ${nodes.length} call${nodes.length === 1 ? '' : 's'} · ${failures} failed${running ? ` · ${running} running` : ''}`
  }

  private show(node: CallNode): void {
    const existing = this.views.get(node)
    if (existing) return existing.update()
    const view = new CallView(node, { showJob: (jobId, started, from) => this.showJob(jobId, started, from) })
    this.views.set(node, view)
    const parent = node.parent ? this.views.get(node.parent) : undefined
    ;(parent ? parent.children : this.calls).append(view.element)
  }

  private showJob(jobId: string, started: boolean, from: CallNode): void {
    for (const node of this.timeline.byId.values()) {
      const job = jobOf(node)
      if (node === from || job?.jobId !== jobId || job.started !== started) continue
      const element = this.views.get(node)?.element
      if (!element) continue
      element.scrollIntoView({ block: 'center' })
      element.classList.add('flash')
      setTimeout(() => element.classList.remove('flash'), 1500)
      return
    }
  }
}
