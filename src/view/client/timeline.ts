/**
 * A session as a timeline (SPEC S11.6): built from the raw journal records, in order, with no
 * DOM, so it is unit-tested in Node. Top-level calls (`run_code` runs and direct tool calls)
 * are the roots; a call from code hangs under its `run_code` call, paired by the parent call id
 * (`parentCallId` when the record carries it, else the part of the call id before its last `/`,
 * which the PTC bridge builds as `<parent callId>/<pairing token>`). Each node keeps the raw
 * `tool/call` and `tool/result` records and, when the journal has one, the approval outcome.
 */

/** A raw journal record as the server passes it on: untrusted, any shape. */
export type RawRecord = Record<string, unknown>

/** What became of a call, policy outcomes spelled out (S5). */
export type Outcome = 'running' | 'ok' | 'failed' | 'denied' | 'cancelled' | 'timeout' | 'blocked' | 'invalid'

/** One call and what is known of it so far. */
export interface CallNode {
  callId: string
  name: string
  /** Position in the journal, from 1: the order calls started in. */
  order: number
  call?: RawRecord
  result?: RawRecord
  /** The `tool/approval` record of an `ask` (S8.1), when the journal has one. */
  approval?: RawRecord
  parent?: CallNode
  children: CallNode[]
}

/** The timeline of one session. */
export class Timeline {
  readonly roots: CallNode[] = []
  readonly byId = new Map<string, CallNode>()
  /** Lines the server could not read (`view/note` records), as text. */
  readonly notes: string[] = []
  private count = 0

  /**
   * Add one record; returns the node it changed (`undefined` for records of other types, notes,
   * and records without a call id). A result or approval for an unknown call makes a root node.
   */
  add(value: unknown): CallNode | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    const record = value as RawRecord
    if (record.type === 'view/note') {
      this.notes.push(`${text(record.text)} (byte ${text(record.offset)})`)
      return undefined
    }
    const callId = typeof record.callId === 'string' ? record.callId : undefined
    if (callId === undefined || (record.type !== 'tool/call' && record.type !== 'tool/result' && record.type !== 'tool/approval')) return undefined
    let node = this.byId.get(callId)
    if (!node) {
      node = { callId, name: typeof record.name === 'string' ? record.name : '(unnamed tool)', order: ++this.count, children: [] }
      this.byId.set(callId, node)
      const parent = this.byId.get(parentIdOf(record, callId) ?? '')
      if (parent && parent !== node) {
        node.parent = parent
        parent.children.push(node)
      } else {
        this.roots.push(node)
      }
    }
    if (record.type === 'tool/call') node.call = record
    else if (record.type === 'tool/result') node.result = record
    else node.approval = record
    return node
  }
}

/** The parent call id of a record: `parentCallId`, else what precedes the last `/` of the id. */
export function parentIdOf(record: RawRecord, callId: string): string | undefined {
  if (typeof record.parentCallId === 'string') return record.parentCallId
  const slash = callId.lastIndexOf('/')
  return slash > 0 ? callId.slice(0, slash) : undefined
}

/** The outcome of a call: `running` until its result; a `run_code` run by its status. */
export function outcomeOf(node: CallNode): Outcome {
  const result = node.result
  if (!result) return 'running'
  const kind = (result.error as { kind?: unknown } | undefined)?.kind
  if (result.isError === true) {
    if (kind === 'denied' || kind === 'cancelled' || kind === 'timeout' || kind === 'blocked') return kind
    if (kind === 'invalid-arguments' || kind === 'invalid-output' || kind === 'unknown-tool') return 'invalid'
    return 'failed'
  }
  if (node.name === 'run_code') {
    const status = (result.value as { status?: unknown } | undefined)?.status
    if (status === 'cancelled') return 'cancelled'
    if (status === 'timeout') return 'timeout'
    if (typeof status === 'string' && status !== 'ok') return 'failed'
  }
  return 'ok'
}

/**
 * What the approval step said, when the call asked (S8.1): `approved`, `refused`, `not obtained`
 * (no responder could ask, or the prompt failed: S5.3), or `not answered: the call was stopped`
 * (journaled `unavailable` with `stopped`: the call was cancelled, its run ended or its session
 * closed while the prompt waited; nobody refused it).
 */
export function approvalOf(node: CallNode): string | undefined {
  const outcome = node.approval?.outcome
  if (outcome === undefined) return undefined
  if (outcome === 'allowed-once') return 'approved'
  if (outcome !== 'unavailable') return 'refused'
  return node.approval?.stopped === true ? 'not answered: the call was stopped' : 'not obtained'
}

/** The background job a call started or used (S10.6): `{jobId, started}`, else `undefined`. */
export function jobOf(node: CallNode): { jobId: string; started: boolean } | undefined {
  const value = node.result?.value as { kind?: unknown; jobId?: unknown } | undefined
  if (value?.kind === 'background' && typeof value.jobId === 'string') return { jobId: value.jobId, started: true }
  const args = node.call?.arguments ?? node.result?.arguments
  const jobId = (args as { jobId?: unknown } | undefined)?.jobId
  return node.name.startsWith('job_') && typeof jobId === 'string' ? { jobId, started: false } : undefined
}

/** The arguments of a call (from its call record, else its result). */
export function argumentsOf(node: CallNode): unknown {
  return node.call?.arguments ?? node.result?.arguments
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? ''
}
