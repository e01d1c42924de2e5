/**
 * The fs observation policy (SPEC S8, `fs-observation-policy`): read-before-edit. It records, per
 * agent, what the fs tools reported reading (`fs/read`: path, content hash, mtime) and writing
 * (`fs/written`), and answers the `fs/write-gate` the fs tools call just before writing: writing
 * a brand-new file passes; overwriting or editing an existing file passes only if this agent read
 * it and it has not changed on disk since (by content hash). Otherwise the reason tells the model
 * to read the file again. The check lives on the gate, not in the tool bodies (S3.1).
 */
import type { Context } from 'cordis'
import type { FsObservation, FsWriteGate } from '../workspace/workspace-events.ts'

/** Plugin name (S8 table). */
export const name = 'fs-observation-policy'

/** What the policy remembers about one file for one agent: content hash and mtime (ms). */
export interface FileObservation {
  readonly hash: string
  readonly mtimeMs: number
}

/** The bucket of calls made without an agent. */
const NO_AGENT = '\0no-agent'

/**
 * The decision of the gate, as a pure function of what was observed and what is on disk (S8):
 * `undefined` to allow, or a model-facing reason to deny.
 */
export function checkWrite(request: FsWriteGate, observed: FileObservation | undefined): string | undefined {
  if (!request.exists) return undefined
  if (!observed && request.current?.utf8 === false) {
    return `${request.path} already exists and has not been read in this session, and read_file cannot read it: it is not UTF-8 text. Convert it to UTF-8 first (for example with bash: iconv -f LATIN1 -t UTF-8, or -f UTF-16 for UTF-16) and read it, or remove it to write it anew; then retry ${request.tool}.`
  }
  if (!observed) {
    return `${request.path} already exists and has not been read in this session. Read it with read_file first, then retry ${request.tool}.`
  }
  if (request.current && request.current.hash !== observed.hash) {
    return `${request.path} changed on disk since it was last read (modified at ${new Date(request.current.mtimeMs).toISOString()}). Read it again with read_file, then retry ${request.tool} against the current content.`
  }
  return undefined
}

/** Install the recorder on `fs/read` / `fs/written` and the `fs/write-gate` check (S8); state lives as long as the plugin. */
export function apply(ctx: Context) {
  // agent -> absolute path -> observation. Lives and dies with this plugin's fiber.
  const seen = new Map<string, Map<string, FileObservation>>()
  const record = (event: FsObservation) => {
    const key = event.agent ?? NO_AGENT
    let files = seen.get(key)
    if (!files) seen.set(key, (files = new Map()))
    files.set(event.path, Object.freeze({ hash: event.hash, mtimeMs: event.mtimeMs }))
  }
  ctx.on('fs/read', record)
  // The writer knows what it wrote, so it may edit again without re-reading; other agents may not.
  ctx.on('fs/written', record)
  ctx.on('fs/write-gate', (request) => checkWrite(request, seen.get(request.agent ?? NO_AGENT)?.get(request.path)))
}
