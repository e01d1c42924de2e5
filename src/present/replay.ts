/**
 * Replay of a session journal through the cards (SPEC S11.3, S11.5): every `tool/call` record
 * becomes its pending card and every `tool/result` record its completed card, in journal order,
 * through the same pure presenters (`present.ts`) and formatter (`format-card.ts`) as the live
 * `ptc run` human mode, so a replay prints the same bytes the live run printed.
 *
 * Pure: no clock, no randomness, no I/O; the caller reads the file. Total: old, truncated or
 * malformed journals never throw; a record that cannot be presented falls back to the generic
 * card (S11.5), and a line that is not a record becomes a one-line note.
 */
import { journalContent } from '../journal/rendered-content.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { ToolResult } from '../tools/types.ts'
import { formatCard } from './format-card.ts'
import { omittedCallCard, omittedResultCard } from './omitted-cards.ts'
import { presentCallCard, presentResultCard } from './present.ts'

/** Finds a tool definition by name (the presenters need it); `undefined` means the generic card. */
export type ToolLookup = (name: string) => Tool | undefined

/** The transport tool: its calls are not carded (the live run prints the script's result instead). */
const RUN_CODE = 'run_code'
/** Title used when a record carries no usable tool name. */
const NAMELESS = '(unnamed tool)'

/**
 * The text of a call's pending card, as the live run prints it: `formatCard(presentCallCard(...))`
 * and a newline; `''` for `run_code`; for a record whose arguments were too big for the journal,
 * a generic card saying so (omitted-cards.ts). `call` is a `ToolCallRecord` or whatever an old or
 * broken journal holds instead. Never throws.
 */
export function callCardText(tools: ToolLookup, call: unknown): string {
  const record = asRecord(call)
  const name = nameOf(record)
  if (name === RUN_CODE) return ''
  // Arguments too big for the journal are a placeholder, not the arguments (S11.5).
  const left = omittedCallCard(name ?? NAMELESS, record)
  if (left) return `${formatCard(left)}\n`
  return `${formatCard(presentCallCard(lookup(tools, name), record?.arguments, name ?? NAMELESS))}\n`
}

/**
 * The text of a result's completed card, as the live run prints it:
 * `formatCard(presentResultCard(...))` and a newline; `''` for `run_code`; for a record with a
 * field too big for the journal, a generic card saying what was left out (omitted-cards.ts).
 * `result` is a `ToolResult` (journal bookkeeping fields `type` and `seq` are ignored) or whatever an old or
 * broken journal holds instead. Never throws.
 */
export function resultCardText(tools: ToolLookup, result: unknown): string {
  const record = asRecord(result)
  const name = nameOf(record)
  if (name === RUN_CODE) return ''
  // A field too big for the journal is a placeholder, never handed to the tool's presenters (S11.5).
  const left = omittedResultCard(name ?? NAMELESS, record)
  if (left) return `${formatCard(left)}\n`
  const { type: _type, seq: _seq, contentFrom: _from, ...rest } = record ?? {}
  const tool = lookup(tools, name)
  // A result journaled with `contentFrom: 'render'` gets its content back from the tool's render.
  const content = rest.content === undefined ? journalContent(tool, record ?? {}) : rest.content
  // A nameless record must not pick up a name from the lookup fallback: give the generic card one.
  const shaped = { ...rest, ...(content !== undefined && { content }), ...(name === undefined && { name: NAMELESS }) } as unknown as ToolResult
  return `${formatCard(presentResultCard(tool, shaped.arguments, shaped))}\n`
}

/**
 * Render every card of a journal (JSONL, one record a line) in order (S11.3): the pending card of
 * each `tool/call` record and the completed card of each `tool/result` record. Records of other
 * types are skipped (newer journals may carry more); empty lines are skipped; a line that is not
 * a JSON object (a truncated last line, garbage) becomes `! journal line N: …`. Never throws.
 * `unrendered` is told the name of each result the journal left for its tool to render
 * (`contentFrom: 'render'`, `rendered-content.ts`) that `tools` does not know: its card is
 * shown without content.
 * @returns the cards' text, each followed by a newline; `''` for an empty journal.
 */
export function replayJournal(text: string, tools: ToolLookup, unrendered?: (name: string) => void): string {
  if (typeof text !== 'string') return ''
  let out = ''
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim()
    if (line === '') continue
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      out += `! journal line ${index + 1}: not JSON${index === lines.length - 1 ? ' (truncated?)' : ''}; skipped\n`
      continue
    }
    const fields = asRecord(record)
    if (!fields) {
      out += `! journal line ${index + 1}: not a record; skipped\n`
      continue
    }
    try {
      if (fields.type === 'tool/call') out += callCardText(tools, fields)
      else if (fields.type === 'tool/result') {
        out += resultCardText(tools, fields)
        const name = nameOf(fields)
        if (unrendered !== undefined && fields.contentFrom === 'render' && name !== undefined && lookup(tools, name) === undefined) unrendered(name)
      }
    } catch {
      // The presenters and the formatter are total; this is the last line of defence (S11.5).
      out += `! journal line ${index + 1}: could not be presented; skipped\n`
    }
  }
  return out
}

/**
 * How much of `text` is journal: `lines`, its non-empty lines; `records`, those that are a
 * journal record (a JSON object with a string `type` and a numeric `seq`, as the journal plugin
 * writes every line). A file with lines but no record is not a journal (`ptc replay` refuses
 * it). Pure; never throws.
 */
export function countJournalRecords(text: string): { lines: number; records: number } {
  let lines = 0
  let records = 0
  for (const raw of typeof text === 'string' ? text.split('\n') : []) {
    const line = raw.trim()
    if (line === '') continue
    lines++
    let fields: Record<string, unknown> | undefined
    try {
      fields = asRecord(JSON.parse(line))
    } catch {
      continue
    }
    if (typeof fields?.type === 'string' && typeof fields.seq === 'number') records++
  }
  return { lines, records }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

function nameOf(record: Record<string, unknown> | undefined): string | undefined {
  const name = record?.name
  return typeof name === 'string' ? name : undefined
}

function lookup(tools: ToolLookup, name: string | undefined): Tool | undefined {
  if (name === undefined) return undefined
  try {
    return tools(name)
  } catch {
    return undefined
  }
}
