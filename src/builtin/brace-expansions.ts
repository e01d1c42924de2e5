/**
 * How many patterns a glob pattern's braces expand to (`{a,b}`, `{1..9}`, `{a..e}`, nested), as
 * Node's `fs.glob` expands them before it walks: each `{a,b}` group multiplies the count. A review
 * found `{a,b}` sixteen times (65,536 patterns) holding the host's thread for 21 s (2^18: 44 s and
 * 384 MB), every session stalled; `glob` refuses such a pattern up front instead.
 */

/** A numeric or single-letter range's closing part: `1..9}`, `a..e}`, `0..100..10}`. */
const RANGE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}/

/**
 * The number of patterns brace expansion makes of `pattern`, counted without expanding it; any
 * count over `cap` is returned as `cap + 1`. A `\` escapes the next character; an unclosed `{` and
 * a group without a comma (`{a}`) are literal text. Pure; linear in the pattern's length.
 */
export function braceExpansions(pattern: string, cap: number): number {
  let index = 0
  const limit = (count: number): number => Math.min(count, cap + 1)

  /** Text up to the end (or, `inside` a group, up to its next `,` or `}`): the product of its groups. */
  const sequence = (inside: boolean): number => {
    let total = 1
    while (index < pattern.length) {
      const char = pattern[index]
      if (char === '\\') index += 2
      else if (inside && (char === ',' || char === '}')) break
      else if (char === '{') {
        const open = index++
        const alternatives = group()
        if (alternatives === undefined) index = open + 1 // unclosed: a literal `{`
        else total = limit(total * alternatives)
      } else index++
    }
    return total
  }

  /** After a `{`: the number of patterns of the group, or `undefined` when it never closes. */
  const group = (): number | undefined => {
    const range = RANGE.exec(pattern.slice(index, index + 64))
    if (range !== null) {
      index += range[0].length
      return limit(rangeSize(range[1]!, range[2]!, range[3]))
    }
    let sum = 0
    for (;;) {
      sum = limit(sum + sequence(true))
      if (index >= pattern.length) return undefined
      if (pattern[index++] === '}') return sum
    }
  }

  return sequence(false)
}

function rangeSize(from: string, to: string, step: string | undefined): number {
  const numeric = /\d/.test(from) && /\d/.test(to)
  const span = numeric ? Math.abs(Number(to) - Number(from)) : Math.abs(to.charCodeAt(0) - from.charCodeAt(0))
  const by = Math.max(1, Math.abs(Number(step ?? 1)) || 1)
  return Math.floor(span / by) + 1
}
