/**
 * The AI SDK's approval statuses (`ToolApprovalStatus` in `ai` 7) read fail-closed (SPEC S8.2):
 * `ai` itself runs a call whose status it does not know, so a typo such as 'user_approval' would
 * skip the approval silently. Here a status outside the table is refused at registration
 * ({@link checkToolApproval}) and denies the call when a function returns it ({@link fromStatus}).
 */
import type { ToolApprovalStatus } from 'ai'
import { describeThrown } from '../../errors/describe-thrown.ts'
import type { ForeignApproval } from '../foreign-tools.ts'

/**
 * Every status `ai` 7 defines and what it means here: `user-approval` asks the host (S5.1, S8.1),
 * `denied` denies, `approved` and `not-applicable` leave the call to ptc's own policy (a
 * framework's yes never overrides a ptc `ask` or denial).
 */
const STATUS_KINDS = {
  'not-applicable': 'none',
  approved: 'none',
  denied: 'deny',
  'user-approval': 'ask',
} as const satisfies Record<Extract<ToolApprovalStatus, string>, ForeignApproval['kind']>

type StatusType = keyof typeof STATUS_KINDS

const ACCEPTED = Object.keys(STATUS_KINDS).map((type) => `'${type}'`).join(', ')

/**
 * @throws TypeError when `toolApproval` (as given to `registerAiSdkTools`) is neither absent, a
 *   function, nor an object whose entries are each absent, a function or a known status (a
 *   string or `{ type, reason? }`). Entries naming tools outside the set are checked too: the
 *   same object is meant for `generateText({ toolApproval })`.
 */
export function checkToolApproval(toolApproval: unknown): void {
  if (toolApproval == null || typeof toolApproval === 'function') return
  if (typeof toolApproval !== 'object' || Array.isArray(toolApproval)) {
    throw new TypeError(`registerAiSdkTools: options.toolApproval takes a function or an object of per-tool statuses (as for generateText({ toolApproval })), got ${describe(toolApproval)}.`)
  }
  for (const [name, entry] of Object.entries(toolApproval)) {
    if (entry == null || typeof entry === 'function' || statusType(entry) !== undefined) continue
    throw new TypeError(`registerAiSdkTools: options.toolApproval.${name} is ${describe(entry)}, not an approval status; the accepted values are ${ACCEPTED}, the same as { type, reason? }, undefined, or a function returning one of them.`)
  }
}

/**
 * What the status `status`, returned for one call of `toolName`, means for that call: the table
 * above, `undefined` as `not-applicable` (as in `ai` 7), and anything else a denial saying the
 * status was not recognised (S8.2: an approval that cannot be read is no approval).
 */
export function fromStatus(toolName: string, status: unknown): ForeignApproval {
  if (status === undefined) return { kind: 'none' }
  const type = statusType(status)
  if (type === undefined) {
    return { kind: 'deny', reason: `The approval status ${describe(status)} for ${toolName} was not recognised (accepted: ${ACCEPTED}), so the call is denied.` }
  }
  const kind = STATUS_KINDS[type]
  if (kind === 'none') return { kind }
  const reason = typeof status === 'object' ? (status as { reason?: unknown }).reason : undefined
  return { kind, ...(typeof reason === 'string' && { reason }) }
}

/** The known type of a status given as a string or `{ type }` (read once: a getter cannot answer twice), else undefined. */
function statusType(status: unknown): StatusType | undefined {
  const type = typeof status === 'string' ? status : typeof status === 'object' && status !== null ? (status as { type?: unknown }).type : undefined
  return typeof type === 'string' && Object.hasOwn(STATUS_KINDS, type) ? (type as StatusType) : undefined
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : describeThrown(value)
}
