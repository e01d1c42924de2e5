/**
 * How the endings of a run word what they count (`run-endings.ts`, SPEC S9): durations, lists of
 * calls by tool, and what may have become of calls a deadline stopped.
 */

/** `1234 ms`: a duration in ms, rounded. */
export function ms(value: number): string {
  return `${Math.round(value)} ms`
}

/** `3 calls: read_file ×2, list_dir`: how many, then the names in first-seen order with counts, at most five kinds. */
export function describeNames(names: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1)
  const shown = [...counts].slice(0, 5).map(([name, count]) => (count === 1 ? name : `${name} ×${count}`))
  return `${names.length} call${names.length === 1 ? '' : 's'}: ${shown.join(', ')}${counts.size > 5 ? ', …' : ''}`
}

/** `names` with each of `taken` (one occurrence each) taken out, in their order. */
export function namesWithout(names: readonly string[], taken: readonly string[]): string[] {
  const left = [...names]
  for (const name of taken) {
    const index = left.indexOf(name)
    if (index !== -1) left.splice(index, 1)
  }
  return left
}

/** `error` with `sentence` added to its message. */
export const withSentence = <E extends { message: string }>(error: E, sentence: string): E => ({ ...error, message: `${error.message} ${sentence}` })

/** What a deadline message says of `running` (> 0) calls it stopped, whatever used most of the time. */
export function stillRunningCaution(running: number): string {
  const them = running === 1 ? 'The call still running was' : 'The calls still running were'
  return `${them} stopped at the deadline and may or may not have taken effect: check before making ${running === 1 ? 'it' : 'them'} again.`
}
