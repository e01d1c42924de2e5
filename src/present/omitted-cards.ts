/**
 * Cards of journal records that had fields left out for being too big (SPEC S11.3, S11.5): a
 * field replaced by a `{"$omitted": "<N> bytes"}` placeholder (journal/omitted.ts) is not the
 * field, so such a record never reaches its tool's presenters or `output.render` (given one,
 * write_file's printed `Updated undefined (undefined bytes…`). It gets the generic card, with
 * what the journal kept and one line per field it left out. Pure: no I/O.
 */
import { isOmitted, MAX_RECORD_BYTES, omittedFields } from '../journal/omitted.ts'
import type { GenericCard } from '../tools/cards.ts'
import type { ToolResult } from '../tools/types.ts'
import { genericResult } from './present.ts'

/** One line per field of `record` the journal left out, e.g. `arguments left out of the journal (2448922 bytes over the 1 MiB a journal record holds)`. */
export function omissionNotes(record: Record<string, unknown> | undefined): string[] {
  const limit = `${MAX_RECORD_BYTES / (1024 * 1024)} MiB`
  return omittedFields(record).map(({ field, size }) => `${field} left out of the journal (${size} over the ${limit} a journal record holds)`)
}

/**
 * The pending card of a journaled call with a field left out: a generic card titled `name`
 * whose body says what was left out; `undefined` when the record left nothing out. Never throws.
 */
export function omittedCallCard(name: string, record: Record<string, unknown> | undefined): GenericCard | undefined {
  const notes = omissionNotes(record)
  if (notes.length === 0) return undefined
  return { card: 'generic', phase: 'pending', title: name, body: notes.join('\n') }
}

/**
 * The completed card of a journaled result with a field left out: the generic card of what the
 * record kept (its arguments, content and error when they were not left out), its body followed
 * by what was left out; `undefined` when the record left nothing out. Never throws.
 */
export function omittedResultCard(name: string, record: Record<string, unknown> | undefined): GenericCard | undefined {
  const notes = omissionNotes(record)
  if (notes.length === 0) return undefined
  const args = isOmitted(record?.arguments) ? undefined : record?.arguments
  const kept = {
    name,
    isError: record?.isError === true,
    content: Array.isArray(record?.content) ? record.content : [],
    ...(!isOmitted(record?.error) && { error: record?.error }),
  } as unknown as ToolResult
  const card = genericResult(undefined, args, kept)
  return { ...card, body: [card.body, ...notes].filter(Boolean).join('\n') }
}
