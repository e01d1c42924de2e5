/**
 * A small TypeScript highlighter for `run_code` scripts: a single left-to-right scan into tokens
 * (comment, string, template, number, keyword, regex, identifier, other). It never fails and never
 * loses text: the tokens concatenate back to the input, so what is shown is exactly the script.
 * Pure (no DOM), so it is unit-tested in Node.
 */

/** A token's kind; the app maps each to a CSS class `tok-<kind>`. */
export type TokenKind = 'comment' | 'string' | 'number' | 'keyword' | 'regex' | 'name' | 'call' | 'plain'

export interface Token {
  kind: TokenKind
  text: string
}

const KEYWORDS = new Set(
  ('await async break case catch class const continue debugger default delete do else enum export extends false finally for from ' +
    'function if import in instanceof interface let new null of return static super switch this throw true try type typeof ' +
    'undefined var void while yield as satisfies keyof readonly').split(' '),
)

/** After these a `/` starts a regex, not a division. */
const REGEX_AFTER = /[(,=:[!&|?{};+\-*%<>~^]$/

/** Tokens of `source`, in order; `tokens.map((t) => t.text).join('') === source`. */
export function highlight(source: string): Token[] {
  const tokens: Token[] = []
  let index = 0
  let previous = ''
  const push = (kind: TokenKind, end: number) => {
    const text = source.slice(index, end)
    tokens.push({ kind, text })
    if (kind !== 'comment' && text.trim() !== '') previous = text.trim()
    index = end
  }
  while (index < source.length) {
    const char = source[index]!
    const next = source[index + 1]
    if (char === '/' && next === '/') push('comment', lineEnd(source, index))
    else if (char === '/' && next === '*') push('comment', blockEnd(source, index))
    else if (char === '"' || char === "'" || char === '`') push('string', quoteEnd(source, index, char))
    else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(next ?? ''))) push('number', matchEnd(source, index, /[0-9a-fA-FxXoObBn_.eE]*/y))
    else if (/[A-Za-z_$]/.test(char)) {
      const end = matchEnd(source, index, /[A-Za-z0-9_$]*/y)
      const word = source.slice(index, end)
      push(KEYWORDS.has(word) ? 'keyword' : /^\s*\(/.test(source.slice(end, end + 40)) ? 'call' : 'name', end)
    } else if (char === '/' && (previous === '' || REGEX_AFTER.test(previous) || KEYWORDS.has(previous))) push('regex', regexEnd(source, index))
    else push('plain', matchEnd(source, index + 1, /[^A-Za-z_$0-9"'`/.]*/y))
  }
  return tokens
}

function matchEnd(source: string, from: number, pattern: RegExp): number {
  pattern.lastIndex = from
  pattern.exec(source)
  return Math.max(from, pattern.lastIndex)
}

function lineEnd(source: string, from: number): number {
  const end = source.indexOf('\n', from)
  return end < 0 ? source.length : end
}

function blockEnd(source: string, from: number): number {
  const end = source.indexOf('*/', from + 2)
  return end < 0 ? source.length : end + 2
}

/** End of a quoted string or template (nested `${…}` are kept inside the token). */
function quoteEnd(source: string, from: number, quote: string): number {
  let index = from + 1
  while (index < source.length) {
    const char = source[index]!
    if (char === '\\') index += 2
    else if (char === quote) return index + 1
    else if (char === '\n' && quote !== '`') return index
    else index++
  }
  return source.length
}

function regexEnd(source: string, from: number): number {
  let index = from + 1
  let inClass = false
  while (index < source.length) {
    const char = source[index]!
    if (char === '\n') return index
    if (char === '\\') index += 2
    else if (char === '[') (inClass = true), index++
    else if (char === ']') (inClass = false), index++
    else if (char === '/' && !inClass) return matchEnd(source, index + 1, /[a-z]*/y)
    else index++
  }
  return source.length
}
