/** The terminal card (S11.1): the shell command, then its output, exit code and signal. */
import type { CardComponent } from '../slots.ts'
import { argumentsOf, jobOf } from '../timeline.ts'

export const terminalCard: CardComponent = {
  render(node, dom) {
    const args = (argumentsOf(node) ?? {}) as { command?: unknown; cwd?: unknown; background?: unknown }
    if (typeof args.command !== 'string') return null
    const value = node.result?.value as { exitCode?: unknown; signal?: unknown; stdout?: unknown; stderr?: unknown; timedOut?: unknown } | undefined
    const job = jobOf(node)
    const status = value && !job
      ? dom.el('div', { class: 'card-meta' }, `exit ${value.exitCode === null ? '—' : String(value.exitCode)}`, typeof value.signal === 'string' ? ` · signal ${value.signal}` : '', value.timedOut === true ? ' · timed out' : '')
      : null
    return dom.el(
      'div',
      { class: 'card-terminal' },
      dom.el('pre', { class: 'terminal-command' }, `$ ${args.command}`, typeof args.cwd === 'string' ? `   (in ${args.cwd})` : '', args.background === true ? '   &' : ''),
      typeof value?.stdout === 'string' && value.stdout !== '' ? dom.el('pre', { class: 'terminal-output' }, value.stdout) : null,
      typeof value?.stderr === 'string' && value.stderr !== '' ? dom.el('pre', { class: 'terminal-output terminal-stderr' }, value.stderr) : null,
      status,
    )
  },
}
