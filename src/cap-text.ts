/**
 * Cutting text to a number of characters without splitting a surrogate pair (S9.7 output caps,
 * a call's failure message crossing into a script, a failed render's JSON). A leaf at the top of
 * `src/`: the pipeline and the PTC service both cut text.
 */

/**
 * Keep the first `maxChars` characters (UTF-16 units) of `text`, one fewer when the cut would
 * split a surrogate pair, with how many were cut. Pure.
 */
export function capText(text: string, maxChars: number): { text: string; cut: number } {
  if (text.length <= maxChars) return { text, cut: 0 }
  const last = text.charCodeAt(maxChars - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars
  return { text: text.slice(0, end), cut: text.length - end }
}
