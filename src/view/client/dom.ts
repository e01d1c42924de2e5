/**
 * The only way the app builds DOM (SPEC S11.6, "safe by construction"): elements by tag name,
 * children as nodes or strings (strings become text nodes, never markup), and attributes from an
 * allow-list that has no URL, event-handler or style attribute, so journal data can never become
 * HTML, script or a link. The page's Trusted Types policy makes HTML string sinks throw anyway.
 */

/** A child: a node, a string (a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false

/** Attributes the app may set; values are plain text. */
export interface Attributes {
  class?: string
  title?: string
  role?: string
  type?: string
  tabindex?: string
  open?: boolean
  disabled?: boolean
  [data: `data-${string}`]: string
  [aria: `aria-${string}`]: string
}

const ALLOWED = /^(class|title|role|type|tabindex|open|disabled|data-[a-z-]+|aria-[a-z-]+)$/

/**
 * `<tag attributes…>children…</tag>`. `onClick` (optional) is attached with addEventListener.
 * @throws Error for an attribute outside the allow-list (a programming error, never data).
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (!ALLOWED.test(name)) throw new Error(`dom.el: attribute "${name}" is not allowed`)
    if (value === false || value === undefined) continue
    element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, ...children)
  return element
}

/** Append children (strings as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child)
  }
}

/** A button that runs `onClick`. */
export function button(label: string, onClick: () => void, attributes: Attributes | null = null): HTMLButtonElement {
  const element = el('button', { type: 'button', ...attributes }, label)
  element.addEventListener('click', onClick)
  return element
}

/** A `<details>` block, open or closed, with a text summary. */
export function details(summary: Child, open: boolean, ...children: Child[]): HTMLDetailsElement {
  return el('details', { open }, el('summary', null, summary), ...children)
}

/** Any JSON value as indented text in a `<pre>` (text, never markup). */
export function jsonBlock(value: unknown, className = 'json'): HTMLPreElement {
  let text: string
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))
  } catch {
    text = String(value)
  }
  return el('pre', { class: className }, text)
}

/** A duration in ms as people read it: `840 ms`, `2.4 s`. */
export function formatDuration(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return ''
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}
