/**
 * Card components in keyed slots (SPEC S11.1, S11.6). The web client does not use the server's
 * presenters: it picks a client component for each call from the raw records. A call of tool
 * `name` is drawn by the component in slot `tool:<name>` if there is one, else by the slot of its
 * card kind, `card:<kind>` (the kinds of S11.1: generic, terminal, diff, read, search, web), with
 * the kind guessed from the tool name; `card:generic` draws everything else. A plugin registers
 * its own component in any slot, for its tools or to replace a built-in kind.
 */
import type { CallNode } from './timeline.ts'

/** The card kinds of S11.1. */
export type CardKind = 'generic' | 'terminal' | 'diff' | 'read' | 'search' | 'web'

/**
 * A client card component: draws the body of one call (its header, policy outcome and raw
 * details are drawn around it by the app). It must build DOM only through the `dom` helpers it is
 * given (text, never markup), and may return `null` to fall back to the generic card.
 */
export interface CardComponent {
  render(node: CallNode, dom: typeof import('./dom.ts')): Node | null
}

const slots = new Map<string, CardComponent>()

/** The kind of card a built-in tool's calls get (S11.1); tools not listed are generic. */
const KIND_OF_TOOL: Record<string, CardKind> = {
  bash: 'terminal',
  edit_file: 'diff',
  write_file: 'diff',
  read_file: 'read',
  search: 'search',
  glob: 'search',
  list_dir: 'search',
  web_search: 'web',
  web_fetch: 'web',
}

/**
 * Put `component` in slot `key` (`tool:<name>` or `card:<kind>`; any later registration of the
 * same key replaces it). Returns a function that removes it again.
 * @throws TypeError when `key` or `component` is malformed.
 */
export function registerCard(key: string, component: CardComponent): () => void {
  if (typeof key !== 'string' || !/^(tool|card):\S+$/.test(key)) throw new TypeError(`registerCard: slot "${String(key)}" must be "tool:<name>" or "card:<kind>"`)
  if (typeof component?.render !== 'function') throw new TypeError(`registerCard: the component for "${key}" needs a render(node, dom) method`)
  slots.set(key, component)
  return () => {
    if (slots.get(key) === component) slots.delete(key)
  }
}

/** The card kind a tool's calls get by default. */
export function kindOfTool(name: string): CardKind {
  if (Object.hasOwn(KIND_OF_TOOL, name)) return KIND_OF_TOOL[name]!
  if (/(^|_)(web|fetch|http|url)(_|$)/.test(name)) return 'web'
  return 'generic'
}

/** The components that may draw `node`, most specific first (the generic one last). */
export function componentsFor(node: CallNode): CardComponent[] {
  const keys = [`tool:${node.name}`, `card:${kindOfTool(node.name)}`, 'card:generic']
  return keys.map((key) => slots.get(key)).filter((component): component is CardComponent => component !== undefined)
}
