/**
 * `read_file` (SPEC S8, S9.6, S11.1–S11.2): reads a workspace text file, returns a window of its
 * lines, and emits `fs/read` so read-before-edit knows this agent has seen the file as it is now.
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import type { ReadCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { looksBinary, readSnapshot } from './file-snapshot.ts'
import { assertUtf8Text, utf16Bom } from './text-encoding.ts'
import { areaForCall, resolveForCall } from './resolve-for-call.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** Default number of lines returned. */
export const DEFAULT_READ_LIMIT = 2000
/** Largest file read_file reads, in bytes (10 MiB). */
export const MAX_READ_BYTES = 10 * 1024 * 1024

/** Arguments: `offset` is the 1-based first line (default 1), `limit` the line count (default 2000). */
export const readFileParameters = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute inside it.'),
  offset: z.number().int().min(1).optional().describe('1-based line to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to return (default ${DEFAULT_READ_LIMIT}).`),
})

/**
 * Canonical value (S9.6): `path` the absolute, symlink-free path read; `text` the returned lines
 * exactly as in the file, each with its own line ending (`\n` or `\r\n`, and the last one's only
 * when the file has it), no line numbers: a whole-file read returns the file's text unchanged, so
 * `write_file({ path, content: text })` leaves it byte for byte as it was; `startLine`/`endLine` 1-based and
 * inclusive (`endLine = startLine - 1` when the window is empty); `totalLines` in the file;
 * `truncated` when lines exist after `endLine`; `sizeBytes` of the whole file; `sha256` its hash.
 * A file that is not UTF-8 is refused (its text could not be written back unchanged).
 */
export const readFileValue = z.object({
  path: z.string(),
  text: z.string().describe('The lines exactly as in the file, line endings included: writing it back leaves the file unchanged.'),
  startLine: z.number().int(),
  endLine: z.number().int(),
  totalLines: z.number().int(),
  truncated: z.boolean(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
})

/** The canonical value of `read_file`. */
export type ReadFileValue = z.output<typeof readFileValue>

/** Split file text into lines the way editors count them: a final newline does not add a line. */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/**
 * The lines of `text` with their own endings kept (`"a\r\n"`, `"b"`): joined again they give
 * `text` exactly. Counted like {@link splitLines}: a final newline does not add a line.
 */
export function splitLinesKeepingEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

/**
 * Lines `startLine` (1-based) to `startLine + limit - 1` of UTF-8 `bytes`, as text with their own
 * endings (what {@link splitLinesKeepingEnds} would give, joined), how many there are, and how
 * many the whole file has. One pass over the bytes, decoding only the window: splitting a 10 MiB
 * file of empty lines into strings held the host's thread 1.5 s (a review), this about 20 ms.
 */
export function lineWindow(bytes: Uint8Array, startLine: number, limit: number): { text: string; count: number; total: number } {
  let newlines = 0
  let start = startLine === 1 ? 0 : -1
  let end = -1
  const lastLine = startLine - 1 + limit // the window ends after this many newlines
  for (let at = 0; at < bytes.length; at++) {
    if (bytes[at] !== 0x0a) continue
    newlines++
    if (newlines === startLine - 1) start = at + 1
    if (newlines === lastLine) end = at + 1
  }
  const total = newlines + (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? 1 : 0)
  if (start === -1 || start >= bytes.length) return { text: '', count: 0, total }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end === -1 ? bytes.length : end)
  return { text, count: Math.min(limit, total - (startLine - 1)), total }
}

/** A line from {@link splitLinesKeepingEnds} without its ending. */
function withoutEnding(line: string): string {
  return line.replace(/\r?\n$/, '')
}

/** Render lines like `cat -n`: right-aligned 1-based number, a tab, the line. */
export function numberLines(lines: readonly string[], startLine: number): string {
  return lines.map((line, index) => `${String(startLine + index).padStart(6)}\t${line}`).join('\n')
}

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: 'typescript', tsx: 'tsx', mts: 'typescript', cts: 'typescript', js: 'javascript', mjs: 'javascript', cjs: 'javascript',
  jsx: 'jsx', json: 'json', md: 'markdown', py: 'python', rs: 'rust', go: 'go', sh: 'bash', yml: 'yaml', yaml: 'yaml',
  toml: 'toml', html: 'html', css: 'css', c: 'c', h: 'c', cpp: 'cpp', java: 'java', rb: 'ruby', txt: 'text',
}

/** A highlighting language guessed from the file extension, or `undefined` (pure). */
export function languageOf(file: string): string | undefined {
  const match = /\.([A-Za-z0-9]+)$/.exec(file)
  return match ? LANGUAGES[match[1]!.toLowerCase()] : undefined
}

/** Build the tool for the context whose `sandboxPolicy` it reads. */
export function readFileTool(ctx: Context): Tool {
  return defineTool({
    name: 'read_file',
    title: 'Read a file',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description:
      'Read a UTF-8 text file in the workspace. Returns its lines (numbered in the display) starting at `offset` (1-based, default 1), ' +
      `at most \`limit\` lines (default ${DEFAULT_READ_LIMIT}). Read a file before editing or overwriting it.`,
    parameters: readFileParameters,
    output: {
      schema: readFileValue,
      render: (_args, value) => [{ type: 'text', text: renderRead(value) }],
    },
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      return readFile(ctx, exec, args)
    },
    presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `Read ${args.path}`, kind: 'read', locations: [{ path: args.path, ...(args.offset && { line: args.offset }) }] }),
    presentResult: (args, result): ReadCard | undefined => {
      const value = readFileValue.safeParse(result.value)
      if (result.isError || !value.success) return undefined
      return {
        card: 'read',
        phase: 'completed',
        path: value.data.path,
        startLine: value.data.startLine,
        lines: value.data.endLine < value.data.startLine ? [] : splitLines(value.data.text),
        ...(languageOf(value.data.path) && { language: languageOf(value.data.path)! }),
      }
    },
  })
}

async function readFile(ctx: Context, exec: Readonly<ToolExecution>, args: z.output<typeof readFileParameters>): Promise<ReadFileValue> {
  const file = resolveForCall(ctx, exec, args.path, 'read')
  const snapshot = await readSnapshot(file, MAX_READ_BYTES, areaForCall(ctx, exec), exec.signal)
  if (!snapshot) throw new WorkspaceToolError('invalid-request', `${args.path} does not exist (resolved to ${file}); use glob or list_dir to find the right path.`, { path: file })
  const consequence = 'read_file returns UTF-8 text only, so that writing its text back cannot change the file.'
  if (utf16Bom(snapshot.bytes) === undefined && looksBinary(snapshot.bytes)) {
    throw new WorkspaceToolError('invalid-request', `${args.path} looks like a binary file (it contains NUL bytes); read_file reads text only.`, { path: file })
  }
  assertUtf8Text(snapshot.bytes, args.path, file, consequence)
  const startLine = args.offset ?? 1
  const limit = args.limit ?? DEFAULT_READ_LIMIT
  const window = lineWindow(snapshot.bytes, startLine, limit)
  ctx.emit('fs/read', { agent: exec.agent, tool: 'read_file', path: file, hash: snapshot.hash, mtimeMs: snapshot.mtimeMs, size: snapshot.size })
  return {
    path: file,
    text: window.text,
    startLine,
    endLine: startLine + window.count - 1,
    totalLines: window.total,
    truncated: startLine - 1 + window.count < window.total,
    sizeBytes: snapshot.size,
    sha256: snapshot.hash,
  }
}

function renderRead(value: ReadFileValue): string {
  if (value.totalLines === 0) return `${value.path} is empty.`
  if (value.endLine < value.startLine) return `${value.path} has ${value.totalLines} lines; nothing at line ${value.startLine}.`
  // At most MAX_SHOWN_LINES numbered: numbering 4 million lines held the host's thread 3.7 s (a review).
  let cut = -1
  for (let shown = 0; shown < MAX_SHOWN_LINES && cut < value.text.length; shown++) {
    cut = value.text.indexOf('\n', cut + 1)
    if (cut === -1) break
  }
  const all = cut === -1 || cut >= value.text.length - 1
  const shownText = all ? value.text : value.text.slice(0, cut + 1)
  const body = numberLines(splitLinesKeepingEnds(shownText).map(withoutEnding), value.startLine)
  if (!all) {
    const last = value.startLine + MAX_SHOWN_LINES - 1
    return `${body}\n(lines ${value.startLine}-${last} shown of the ${value.endLine - value.startLine + 1} read, ${value.startLine}-${value.endLine} of ${value.totalLines}; the value's text holds them all, or read on with offset ${last + 1})`
  }
  const more = value.truncated ? `\n(lines ${value.startLine}-${value.endLine} of ${value.totalLines}; read on with offset ${value.endLine + 1})` : ''
  return body + more
}

/** Most lines {@link renderRead} numbers for the display; the value's text holds the whole window. */
export const MAX_SHOWN_LINES = 20_000
