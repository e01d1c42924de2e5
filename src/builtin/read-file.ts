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
  const lines = splitLinesKeepingEnds(snapshot.text)
  const startLine = args.offset ?? 1
  const limit = args.limit ?? DEFAULT_READ_LIMIT
  const window = lines.slice(startLine - 1, startLine - 1 + limit)
  ctx.emit('fs/read', { agent: exec.agent, tool: 'read_file', path: file, hash: snapshot.hash, mtimeMs: snapshot.mtimeMs, size: snapshot.size })
  return {
    path: file,
    text: window.join(''),
    startLine,
    endLine: startLine + window.length - 1,
    totalLines: lines.length,
    truncated: startLine - 1 + window.length < lines.length,
    sizeBytes: snapshot.size,
    sha256: snapshot.hash,
  }
}

function renderRead(value: ReadFileValue): string {
  if (value.totalLines === 0) return `${value.path} is empty.`
  if (value.endLine < value.startLine) return `${value.path} has ${value.totalLines} lines; nothing at line ${value.startLine}.`
  const body = numberLines(splitLinesKeepingEnds(value.text).map(withoutEnding), value.startLine)
  const more = value.truncated ? `\n(lines ${value.startLine}-${value.endLine} of ${value.totalLines}; read on with offset ${value.endLine + 1})` : ''
  return body + more
}
