/**
 * Shared leading properties (SPEC S9.1): objects of different tools that start with the same run
 * of properties (a job's fields, then what one tool adds) print as `Base & { rest }`, with `Base`
 * declared once. Only leading runs are considered (what zod's `.extend()` and hand-written schemas
 * produce), of at least `MIN_BASE_PROPERTIES` properties shared by at least two distinct objects.
 */
import { pascalCase } from './alias-names.ts'
import { propertyKey } from './node-key.ts'
import type { PropertyNode, TypeNode } from './type-node.ts'

/** Shortest shared run of leading properties worth a base. */
export const MIN_BASE_PROPERTIES = 3

type ObjectNode = Extract<TypeNode, { kind: 'object' }>

/** An object seen in the declarations: its node, how often it is printed, and its name hint. */
export interface ObjectUse {
  node: ObjectNode
  uses: number
  hint: string
}

/** A candidate base: the leading properties and the objects (by key) that start with them. */
export interface BaseCandidate {
  base: ObjectNode
  /** Objects starting with the base, and their `uses`. */
  members: ObjectUse[]
  /** A name hint: see `commonHint`. */
  hint: string
}

/**
 * Every leading run of `MIN_BASE_PROPERTIES` or more properties shared by two or more of
 * `objects` (objects with an index signature or no keys are left out), in first-seen order.
 */
export function baseCandidates(objects: readonly ObjectUse[]): BaseCandidate[] {
  const byPrefix = new Map<string, BaseCandidate>()
  // A prefix's key is its properties' small ids: stringifying each prefix whole cost the square
  // of an object's size (a review's hostile schema: 7 s in here).
  const ids = new Map<string, number>()
  const idOf = (property: PropertyNode): number => {
    const identity = `${property.optional ? '?' : ''}${JSON.stringify(property.key)}${propertyKey(property)}`
    let id = ids.get(identity)
    if (id === undefined) ids.set(identity, (id = ids.size))
    return id
  }
  for (const use of objects) {
    const { node } = use
    if (node.index !== undefined || node.noKeys) continue
    let key = ''
    for (let length = 1; length <= node.properties.length; length++) {
      key += `${idOf(node.properties[length - 1]!)},`
      if (length < MIN_BASE_PROPERTIES) continue
      const properties = node.properties.slice(0, length)
      const candidate = byPrefix.get(key)
      if (candidate) candidate.members.push(use)
      else byPrefix.set(key, { base: { kind: 'object', properties, index: undefined, noKeys: false }, members: [use], hint: '' })
    }
  }
  return [...byPrefix.values()]
    .filter((candidate) => candidate.members.length >= 2)
    .map((candidate) => {
      const exact = candidate.members.find((member) => member.node.properties.length === candidate.base.properties.length)
      return { ...candidate, hint: commonHint(candidate.members.map((member) => member.hint), exact?.hint) }
    })
}

/**
 * The PascalCase words all hints start with, plus those they all end with (`JobResult` for
 * `JobKillResult`, `JobReadResult`); when they share no first word, the hint of the member that
 * is exactly the base (`WriteFileResult & { replacements }`), else the first hint with `Base`.
 */
function commonHint(hints: readonly string[], exact: string | undefined): string {
  const words = hints.map((hint) => pascalCase(hint).match(/[A-Z][a-z0-9]*|[a-z0-9]+/g) ?? [])
  const first = words[0] ?? []
  let shared = 0
  while (shared < first.length && words.every((list) => list[shared] === first[shared])) shared++
  let tail = 0
  const fits = (list: string[]) => list.length - tail - 1 >= shared && list[list.length - tail - 1] === first[first.length - tail - 1]
  while (shared > 0 && tail < first.length - shared && words.every(fits)) tail++
  if (shared > 0) return [...first.slice(0, shared), ...first.slice(first.length - tail)].join('')
  return exact ?? `${pascalCase(hints[0] ?? '')}Base`
}
