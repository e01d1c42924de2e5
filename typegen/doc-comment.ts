/**
 * Doc comment text handling shared by the tool entries and the schema pre-pass: first-sentence
 * extraction (compact mode, deferred tools) and `/** … *\/` rendering that cannot be closed early
 * by the description itself.
 */

/** Longest first sentence kept, in characters (UTF-16 code units); longer ones are cut with `…`. */
export const FIRST_SENTENCE_MAX_CHARS = 200

/**
 * The first sentence of `text`: its first paragraph with whitespace collapsed, cut after the first
 * `.`, `!` or `?` that is followed by whitespace and a capital letter (or ends the paragraph), then
 * capped at `FIRST_SENTENCE_MAX_CHARS`. Returns `''` for blank text. Never throws.
 */
export function firstSentence(text: string): string {
  const paragraph = (text.trim().split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim()
  const match = /^.*?[.!?](?=\s+[A-Z]|$)/.exec(paragraph)
  const sentence = match ? match[0] : paragraph
  return sentence.length > FIRST_SENTENCE_MAX_CHARS
    ? `${sentence.slice(0, FIRST_SENTENCE_MAX_CHARS - 1).trimEnd()}…`
    : sentence
}

/**
 * Makes text safe inside a block comment: `*\/` becomes `*\\/` so a description can never end the
 * comment and inject declarations; line endings become `\n`.
 */
export function escapeCommentText(text: string): string {
  // U+2028/U+2029 end a line for TypeScript: in a `//` doc the rest would read as code (a trial
  // declared a fake property through a description). They become line breaks like any other.
  return text.replace(/\r\n?|[\u2028\u2029]/g, '\n').replaceAll('*/', '*\\/')
}

/**
 * Renders `text` as a doc comment, each line prefixed by `indent`: `/** one line *\/` when the text
 * is a single line, the usual multi-line block otherwise. Returns `[]` for blank text.
 */
export function renderDocComment(text: string, indent: string): string[] {
  const lines = escapeCommentText(text.trim()).split('\n').map((line) => line.trimEnd())
  if (lines.length === 1) return lines[0] === '' ? [] : [`${indent}/** ${lines[0]} */`]
  return [`${indent}/**`, ...lines.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)), `${indent} */`]
}
