/**
 * One call of the timeline as DOM (SPEC S11.6): a header (tool name, outcome badge with the
 * policy outcome spelled out, approval, duration, job links), the body drawn by the card component
 * of its slot (a `run_code` run gets its script, result and logs instead), the raw details
 * (arguments, canonical value, content, error) folded, and the calls made from it nested below.
 * Parts are redrawn in place when a record arrives, so nested calls and open folds stay.
 */
import * as dom from './dom.ts'
import { renderRunOutcome, renderScript } from './run-view.ts'
import { componentsFor } from './slots.ts'
import { approvalOf, argumentsOf, jobOf, outcomeOf, type CallNode } from './timeline.ts'

/** What the call view needs from the session around it. */
export interface CallContext {
  /** Scroll to and flash the first other call using `jobId` (`started`: the one that started it). */
  showJob(jobId: string, started: boolean, from: CallNode): void
}

/** The label of each outcome as the badge reads. */
const OUTCOME_LABEL = {
  running: 'running…',
  ok: 'ok',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
  timeout: 'timed out',
  blocked: 'blocked',
  invalid: 'invalid',
} as const

/** The DOM of one call; `update()` redraws it from its node. */
export class CallView {
  readonly node: CallNode
  readonly element: HTMLElement
  readonly children: HTMLElement
  private readonly parts: HTMLElement
  private readonly tail: HTMLElement
  private readonly context: CallContext

  constructor(node: CallNode, context: CallContext) {
    this.node = node
    this.context = context
    this.parts = dom.el('div', { class: 'call-parts' })
    this.children = dom.el('div', { class: 'call-children' })
    this.tail = dom.el('div', { class: 'call-tail' })
    this.element = dom.el('article', { class: 'call', 'data-call-id': node.callId, 'data-tool': node.name }, this.parts, this.children, this.tail)
    this.update()
  }

  /**
   * Redraw header, body and details (not the nested calls). A run reads top to bottom: script,
   * the calls it made, then its result and logs.
   */
  update(): void {
    const node = this.node
    const outcome = outcomeOf(node)
    const run = node.name === 'run_code'
    this.element.className = `call outcome-${outcome}${run ? ' run' : ''}`
    this.element.setAttribute('data-outcome', outcome)
    const parts = [this.header(outcome), run ? renderScript(node) : this.card()]
    this.parts.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null))
    this.tail.replaceChildren(...(run ? [renderRunOutcome(node)] : []), this.raw())
  }

  private header(outcome: keyof typeof OUTCOME_LABEL): HTMLElement {
    const node = this.node
    const approval = approvalOf(node)
    const job = jobOf(node)
    const error = node.result?.error as { message?: unknown } | undefined
    return dom.el(
      'header',
      { class: 'call-head' },
      dom.el('span', { class: 'call-name' }, node.name),
      dom.el('span', { class: `badge badge-${outcome}`, 'data-role': 'outcome' }, OUTCOME_LABEL[outcome]),
      approval ? dom.el('span', { class: 'badge badge-asked', 'data-role': 'approval' }, `asked → ${approval}`) : null,
      typeof node.result?.durationMs === 'number' ? dom.el('span', { class: 'call-duration' }, dom.formatDuration(node.result.durationMs)) : null,
      job ? dom.button(job.started ? `job ${job.jobId}: output ↓` : `job ${job.jobId}: started by ↑`, () => this.context.showJob(job.jobId, !job.started, node), { class: 'job-link' }) : null,
      node.name === 'run_code' ? null : dom.el('span', { class: 'call-summary' }, summary(argumentsOf(node))),
      outcome !== 'ok' && outcome !== 'running' && typeof error?.message === 'string' ? dom.el('div', { class: 'call-reason' }, error.message) : null,
    )
  }

  private card(): HTMLElement | null {
    for (const component of componentsFor(this.node)) {
      try {
        const drawn = component.render(this.node, dom)
        if (drawn) return dom.el('div', { class: 'call-body' }, drawn)
      } catch (error) {
        // S11.5: a card never breaks the page; the next component (finally generic) draws it.
        console.warn('ptc view: a card component failed', error)
      }
    }
    return null
  }

  private raw(): HTMLElement {
    const node = this.node
    const result = node.result
    const sections: dom.Child[] = [dom.el('h4', null, 'arguments'), dom.jsonBlock(argumentsOf(node) ?? null)]
    if (result && 'value' in result) sections.push(dom.el('h4', null, 'canonical value'), dom.jsonBlock(result.value))
    if (result && Array.isArray(result.content)) sections.push(dom.el('h4', null, 'content'), dom.jsonBlock(result.content))
    // Journaled without it: the content is the tool's render of the value above (rendered-content.ts).
    else if (result?.contentFrom === 'render') sections.push(dom.el('h4', null, 'content'), dom.el('p', null, "the tool's rendering of the canonical value (not stored in the journal)"))
    if (result?.error !== undefined) sections.push(dom.el('h4', null, 'error'), dom.jsonBlock(result.error))
    if (node.approval) sections.push(dom.el('h4', null, 'approval'), dom.jsonBlock(node.approval))
    return dom.details(`details · ${node.callId}`, false, ...sections)
  }
}

/** A one-line summary of arguments: the JSON, cut at 160 characters. */
export function summary(args: unknown): string {
  let text: string
  try {
    text = JSON.stringify(args) ?? ''
  } catch {
    text = ''
  }
  return text.length > 160 ? `${text.slice(0, 160)}…` : text
}
