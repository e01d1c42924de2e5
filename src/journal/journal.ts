/**
 * The session journal plugin: every `tool/call` and every frozen `tools/result` (exactly the
 * snapshot live observers saw, S6.4) is appended as one JSON line, in order, so a session can be
 * audited and its cards replayed later (S11.3). Appends go through safe-fs (S8: no symlink followed,
 * only a regular file written). The answer of every approval request (`tool/approval`, between a
 * call and its result) is appended too, by an outermost `approval/request` listener that passes
 * the request on and records what came back (`unavailable` when a responder could not ask, and
 * `unavailable` with `stopped: true` when the call was stopped before an answer came). A write failure is reported on stderr and through
 * `journal/error`, never silently dropped.
 */
import { mkdirSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { appendFileSafeSync } from '../workspace/safe-fs.ts'
import { journalFolder } from '../workspace/state-folder.ts'
import { holdJournal, type JournalRetention, pruneJournals } from './journal-retention.ts'
import { MAX_RECORD_BYTES, omittedPlaceholder } from './omitted.ts'
import { withoutRenderedContent } from './rendered-content.ts'
import { ApprovalNotObtainedError, PtcError } from '../errors/ptc-error.ts'
import { stopSignalOf } from '../pipeline/execution.ts'
import type { Context } from 'cordis'
import type { ApprovalOutcome, ToolCallRecord, ToolResult } from '../tools/types.ts'

declare module 'cordis' {
  interface Events {
    /** The journal could not write a record; `record` is the line that was lost. */
    'journal/error'(failure: { file: string; error: unknown; record: string }): void
  }
}

/**
 * What the approval step answered for a call whose policy said `ask` (S5.1, S8.1): journaled so
 * an audit (and `ptc view`) shows that the call asked and what came back.
 */
export interface ApprovalRecord {
  readonly callId: string
  readonly name: string
  readonly agent: string | undefined
  readonly reason?: string
  readonly outcome: ApprovalOutcome
  /**
   * Set (with `outcome: 'unavailable'`) when the call was stopped while it awaited the answer: its
   * caller cancelled it, its run was cancelled or timed out, or its session or host ended. Nobody
   * refused, and the call was not made (its result is `cancelled`).
   */
  readonly stopped?: true
}

/**
 * One line of the journal. `seq` counts from 1 within the file. A result whose `content` is
 * exactly what its tool's `output.render(arguments, value)` gives (S1.2: render is pure) is
 * written without it and with `contentFrom: 'render'`: readers re-render it from the value
 * (`journalContent` in rendered-content.ts), so the journal does not hold every payload twice.
 */
export type JournalRecord =
  | ({ type: 'tool/call'; seq: number; session?: string } & ToolCallRecord)
  | ({ type: 'tool/approval'; seq: number; session?: string } & ApprovalRecord)
  | ({ type: 'tool/result'; seq: number; session?: string; contentFrom?: 'render' } & Omit<ToolResult, 'content'> & { content?: ToolResult['content'] })

export const name = 'journal'

export { MAX_RECORD_BYTES }

/** The fields of a record that carry payloads: one found too big is remembered (below). */
const PAYLOAD_FIELDS: ReadonlySet<string> = new Set(['arguments', 'value', 'content'])

/** Bookkeeping fields a capped record always keeps (unless a string over 1024 characters). */
const KEPT_FIELDS: ReadonlySet<string> = new Set(['type', 'seq', 'callId', 'name', 'agent', 'isError'])

/**
 * Byte sizes of the JSON of frozen payloads already found too big for a record. A call's
 * arguments are journaled with the call and again with its result: the second record takes the
 * size from here instead of serializing megabytes a second time on the host's thread.
 */
const OVERSIZED_PAYLOADS = new WeakMap<object, number>()

/** One field of a record: its JSON (absent when only its size is known) and that JSON's size in bytes. */
interface FieldText {
  key: string
  json: string | undefined
  bytes: number
}

/**
 * The JSON of one record, at most `MAX_RECORD_BYTES` (S11.3: a journal stays bounded and
 * replayable). A larger record has its largest fields replaced, one at a time, by
 * `{"$omitted": "<N> bytes"}` (omitted.ts), N the byte size of that field's JSON, until it fits:
 * a result whose arguments were 2.4 MB keeps its 262 KB value. The bookkeeping fields `type`,
 * `seq`, `callId`, `name`, `agent` and `isError` are never replaced. Replay shows such records as
 * generic cards saying what was left out. Each field is serialized at most once (the line is
 * the fields' texts joined, as `JSON.stringify` of the record writes it), and a frozen payload
 * already found too big is not serialized again. Pure but for that cache of sizes.
 */
export function capRecord(record: Record<string, unknown>): string {
  const fields: FieldText[] = []
  let total = 1
  for (const key of Object.keys(record)) {
    const value = record[key]
    const payload = PAYLOAD_FIELDS.has(key) && typeof value === 'object' && value !== null
    const known = payload ? OVERSIZED_PAYLOADS.get(value) : undefined
    const json = known === undefined ? JSON.stringify(value) : undefined
    if (known === undefined && json === undefined) continue
    const bytes = known ?? Buffer.byteLength(json!)
    if (payload && known === undefined && bytes > MAX_RECORD_BYTES && Object.isFrozen(value)) OVERSIZED_PAYLOADS.set(value, bytes)
    fields.push({ key, json, bytes })
    total += Buffer.byteLength(JSON.stringify(key)) + bytes + 2
  }
  const omit = (field: FieldText) => JSON.stringify(omittedPlaceholder(field.bytes))
  const kept = (field: FieldText) => KEPT_FIELDS.has(field.key) && !(typeof record[field.key] === 'string' && (record[field.key] as string).length > 1024)
  // Largest first (a stable sort: ties in record order). A field whose JSON is unknown is an
  // oversized payload, over the limit by itself: it is always among those replaced.
  const omitted = new Set<FieldText>()
  for (const field of fields.filter((field) => !kept(field)).sort((a, b) => b.bytes - a.bytes)) {
    if (total <= MAX_RECORD_BYTES) break
    omitted.add(field)
    total -= field.bytes - Buffer.byteLength(omit(field))
  }
  return `{${fields.map((field) => `${JSON.stringify(field.key)}:${omitted.has(field) ? omit(field) : field.json!}`).join(',')}}`
}

/**
 * `file`: where to append (created with its folders). Default:
 * `<workspace>/.ptc/journal/<ISO time>-<pid>.jsonl`, with `workspace` defaulting to the cwd.
 * `agent`: record only calls made by this agent (one journal per session); default all.
 * `session`: the MCP session id the journal belongs to (`ptc serve`); written into every record
 * as `session`, so a record can be matched to the client's `Mcp-Session-Id`.
 * `retention`: once the file is created, prune the other journals of its folder to these bounds
 * (`pruneJournals`; never a journal this process has open); default none (the host passes it
 * only for its state folder's journal folder).
 */
export interface Config {
  file?: string
  workspace?: string
  agent?: string
  session?: string
  retention?: JournalRetention
}

/** The path the journal plugin writes to for `config`. */
export function journalPath(config: Config = {}): string {
  if (config.file) return resolve(config.file)
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  return join(journalFolder(resolve(config.workspace ?? '.')), `${stamp}-${process.pid}.jsonl`)
}

export function apply(ctx: Context, config: Config = {}) {
  const file = journalPath(config)
  let seq = 0
  // The journal's folder, realpath'd once on first write; every append opens the file inside it
  // without following symlinks (S8), so a `bash` job cannot redirect the audit log.
  let folder: string
  try {
    // The journal is the audit record: a run must not start when it cannot be written.
    mkdirSync(dirname(file), { recursive: true })
    folder = realpathSync(dirname(file))
    appendFileSafeSync(join(folder, basename(file)), { roots: [folder] }, '')
  } catch (error) {
    throw new PtcError('journal-unwritable', `Cannot write the journal ${file}: ${(error as Error).message}. Name a writable file (the journal option; --journal for ptc).`, { details: { file } })
  }
  ctx.effect(() => holdJournal(join(folder, basename(file))), `journal hold ${file}`)
  if (config.retention) pruneJournals(folder, config.retention, [join(folder, basename(file))])
  const session = config.session === undefined ? {} : { session: config.session }
  const append = (record: Record<string, unknown>) => {
    const line = `${capRecord({ ...record, ...session, seq: ++seq })}\n`
    try {
      appendFileSafeSync(join(folder, basename(file)), { roots: [folder] }, line)
    } catch (error) {
      console.error(`[ptc-runner] journal: could not write to ${file}: ${(error as Error).message}`)
      ctx.emit('journal/error', { file, error, record: line })
    }
  }
  const mine = (agent: string | undefined) => config.agent === undefined || agent === config.agent
  ctx.on('tool/call', (call) => {
    if (mine(call.agent)) append({ type: 'tool/call', ...call })
  })
  ctx.on('tools/result', (result) => {
    if (mine(result.agent)) append({ type: 'tool/result', ...withoutRenderedContent(ctx, result, MAX_RECORD_BYTES) })
  })
  // Outermost (prepend), so it hears the answer of whichever responder gives it. A responder that
  // could not ask (ApprovalNotObtainedError, S5.3) got no answer: recorded as `unavailable`.
  ctx.on(
    'approval/request',
    async (request, next) => {
      let recorded = false
      const record = (outcome: ApprovalOutcome, stopped?: true) => {
        if (recorded) return
        recorded = true
        const { callId, name, agent } = request.execution
        if (mine(agent)) append({ type: 'tool/approval', callId, name, agent, ...(typeof request.reason === 'string' && { reason: request.reason }), outcome, ...(stopped && { stopped }) })
      }
      // S6.3: the call's stop (the caller's or the host's, as the pipeline sees it) ends its wait
      // unanswered and the call is not made. Recorded when it happens (before the cancelled
      // result), not from what the responder says afterwards: the terminal and MCP prompts end
      // with the not-answered ApprovalNotObtainedError on the same stop, but a responder of a
      // --tools module may answer 'denied' (nobody's refusal) or ignore the stop and never answer.
      const stop = stopSignalOf(request.execution)
      const onStop = () => record('unavailable', true)
      if (stop?.aborted) onStop()
      else stop?.addEventListener('abort', onStop, { once: true })
      let outcome: ApprovalOutcome
      try {
        outcome = await next()
      } catch (error) {
        if (ApprovalNotObtainedError.isInstance(error)) record('unavailable')
        throw error
      } finally {
        stop?.removeEventListener('abort', onStop)
      }
      record(outcome)
      return outcome
    },
    { prepend: true },
  )
}

