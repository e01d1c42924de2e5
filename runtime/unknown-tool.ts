/**
 * The message for a tool name that does not exist (SPEC S9.1): `There is no tool named
 * 'raed_file'. Did you mean 'read_file'? The tools are: …`. One wording for both places a model
 * meets it: the type check's diagnostic (`src/ptc/format-diagnostics.ts` imports this file) and,
 * without a type check, the `ToolCallError` `tools.raed_file` throws inside the isolate (`tools-proxy.ts`).
 *
 * It runs inside the isolate after the script may have poisoned its realm, so it follows the
 * rules of `intrinsics.ts`: no array methods, spread or iteration, captured string methods only,
 * null-prototype records indexed by number instead of arrays it writes to.
 */
import { ObjectCreate, StringPrototypeIndexOf, StringPrototypeToLowerCase } from './intrinsics.ts'

/** How many tool names the message lists in full; beyond it, only the closest ones. */
const MAX_LISTED_TOOLS = 40
/** How many close names it suggests. */
const MAX_SUGGESTIONS = 3

/** A list the runtime writes to: numbered own entries of a null-prototype record. */
type List<T> = Record<number, T>

/**
 * `There is no tool named 'x'. Did you mean 'y'? The tools are: a, b, c.` (`available` listed in
 * code-unit order, or counted when there are more than 40); up to three suggestions within a
 * small edit distance of `name` (or containing it, or contained in it), closest first. Pure;
 * never throws for string input.
 */
export function unknownToolMessage(name: string, available: readonly string[]): string {
  const count = available.length
  const sorted = ObjectCreate(null) as List<string>
  for (let index = 0; index < count; index++) insertSorted(sorted, index, available[index]!)
  const closest = closestNames(name, sorted, count)
  let suggestion = ''
  for (let index = 0; index < closest.count; index++) suggestion += (index === 0 ? ' Did you mean ' : ' or ') + "'" + closest.names[index] + "'"
  if (suggestion !== '') suggestion += '?'
  let listed: string
  if (count === 0) listed = ' No tools are available.'
  else if (count <= MAX_LISTED_TOOLS) {
    listed = ' The tools are: '
    for (let index = 0; index < count; index++) listed += (index === 0 ? '' : ', ') + sorted[index]
    listed += '.'
  } else listed = ' There are ' + count + ' tools; see the declarations for the full list.'
  return "There is no tool named '" + name + "'." + suggestion + listed
}

/** Inserts `value` into the sorted `list` of `length` entries (insertion sort: an error path, rarely long). */
function insertSorted(list: List<string>, length: number, value: string): void {
  let at = length
  while (at > 0 && list[at - 1]! > value) {
    list[at] = list[at - 1]!
    at--
  }
  list[at] = value
}

/** The {@link MAX_SUGGESTIONS} closest of `names` (sorted, `count` entries), closest first, ties in name order. */
function closestNames(name: string, names: List<string>, count: number): { names: List<string>; count: number } {
  const wanted = StringPrototypeToLowerCase(name)
  const limit = wanted.length < 6 ? 2 : (wanted.length / 3) | 0
  const best = ObjectCreate(null) as List<string>
  const distances = ObjectCreate(null) as List<number>
  let found = 0
  for (let index = 0; index < count; index++) {
    const candidate = names[index]!
    const lower = StringPrototypeToLowerCase(candidate)
    const distance = StringPrototypeIndexOf(lower, wanted) !== -1 || StringPrototypeIndexOf(wanted, lower) !== -1 ? 1 : editDistance(wanted, lower)
    if (distance > limit) continue
    // Names come in order, so one as close as the worst kept goes after it: ties stay in name order.
    let at: number
    if (found < MAX_SUGGESTIONS) at = found++
    else if (distances[MAX_SUGGESTIONS - 1]! <= distance) continue
    else at = MAX_SUGGESTIONS - 1
    while (at > 0 && distances[at - 1]! > distance) {
      best[at] = best[at - 1]!
      distances[at] = distances[at - 1]!
      at--
    }
    best[at] = candidate
    distances[at] = distance
  }
  return { names: best, count: found }
}

/** Levenshtein distance with adjacent transpositions counted as one edit (`raed` → `read`), in three rolling rows. */
function editDistance(a: string, b: string): number {
  let before = ObjectCreate(null) as List<number>
  let previous = ObjectCreate(null) as List<number>
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    const row = ObjectCreate(null) as List<number>
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      let value = previous[j]! + 1
      if (row[j - 1]! + 1 < value) value = row[j - 1]! + 1
      const replaced = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      if (replaced < value) value = replaced
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1] && before[j - 2]! + 1 < value) value = before[j - 2]! + 1
      row[j] = value
    }
    before = previous
    previous = row
  }
  return previous[b.length]!
}
