/**
 * The engine of `search` (SPEC S8, S1.3): ripgrep (`rg`, Debian's `ripgrep` package) in its own
 * process, through the same sandbox and process runner as `bash`. Matching never runs on the
 * host's event loop: ripgrep's regex engine has no backtracking (time linear in the input), and
 * the process is killed when the call's signal aborts (its deadline or a cancel), so a search
 * ends at the call's deadline whatever the pattern. ripgrep also honours `.gitignore`.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { SandboxedCommand } from '../policy/sandbox-types.ts'
import { runProcess } from './process-runner.ts'
import { WorkspaceToolError } from './workspace-tool-error.ts'

/** One matching line: `file` absolute, `line` 1-based, `text` without its line break. */
export interface RipgrepMatch {
  readonly file: string
  readonly line: number
  readonly text: string
}

/** What {@link searchWithRipgrep} found. */
export interface RipgrepOutcome {
  /** Matches in ripgrep's order (by path), at most `maxMatches`. */
  readonly matches: RipgrepMatch[]
  /** Files searched; when `truncated`, only those with a match before the stop are known. */
  readonly filesSearched: number
  /** More than `maxMatches` lines matched: ripgrep was stopped there. */
  readonly truncated: boolean
}

/** Input of {@link ripgrepArgs}. */
export interface RipgrepQuery {
  readonly pattern: string
  /** Only files whose path relative to the searched directory matches this glob. */
  readonly glob?: string
  /** Files larger than this many bytes are skipped. */
  readonly maxFileBytes: number
  /** Path globs (gitignore syntax, relative to the searched directory) never entered. */
  readonly exclude: readonly string[]
}

/** Grace in ms between SIGTERM and SIGKILL when a search is stopped: ripgrep holds no state worth a clean exit. */
const KILL_GRACE_MS = 100

/**
 * The absolute path of `rg` on `envPath` (a `PATH` value), checked to be an executable file.
 * @throws Error saying how to install ripgrep when it is not found.
 */
export function findRipgrep(envPath: string | undefined = process.env.PATH): string {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const candidate = path.join(dir, 'rg')
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {}
  }
  throw new Error('search needs ripgrep (the rg command), which is not installed or not on PATH: install the ripgrep package (apt-get install ripgrep; scripts/setup.sh does it).')
}

/** What look-around in a pattern must be replaced by (S8): shared by the argument check and ripgrep's refusal. */
const LOOK_AROUND_HINT = 'look-ahead and look-behind ((?=, (?!, (?<=, (?<!) are not supported by search\'s linear-time engine: match the surrounding text itself, or search for a simpler pattern and filter the lines in code'
/** What a backreference must be replaced by. */
const BACKREFERENCE_HINT = 'backreferences (\\1, \\k<name>) are not supported by search\'s linear-time engine: search for one part of the text and check the repetition in code'

/**
 * The syntax a pattern uses that ripgrep's engine refuses and JavaScript accepts, found without
 * running anything (outside character classes: look-around groups, numbered or named
 * backreferences), as a model-facing sentence saying what to do instead; `undefined` when none.
 */
export function unsupportedSyntax(pattern: string): string | undefined {
  let inClass = false
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]
    if (char === '\\') {
      const next = pattern[index + 1] ?? ''
      if (!inClass && (/[1-9]/.test(next) || (next === 'k' && pattern[index + 2] === '<'))) return BACKREFERENCE_HINT
      index++
    } else if (inClass) {
      if (char === ']') inClass = false
    } else if (char === '[') {
      inClass = true
      if (pattern[index + 1] === ']') index++ // "[]...]": a leading ] is a literal.
    } else if (char === '(' && /^\(\?(?:=|!|<=|<!)/.test(pattern.slice(index, index + 4))) {
      return LOOK_AROUND_HINT
    }
  }
  return undefined
}

/**
 * The argument list after the program name for a search of `target`: one line per match as
 * `path NUL line:text`, then `--stats` (ripgrep 13's `--json` counts only files with a match);
 * sorted by path (deterministic, single-threaded), no config file, `.gitignore` honoured even
 * outside a git repository, hidden files, symlinks and binary files skipped (ripgrep's defaults),
 * excludes last so they win over the caller's glob.
 */
export function ripgrepArgs(query: RipgrepQuery, target = '.'): string[] {
  const args = ['--no-config', '--null', '--no-heading', '--with-filename', '--line-number', '--color', 'never', '--stats', '--sort', 'path', '--no-require-git']
  args.push('--max-filesize', String(query.maxFileBytes))
  if (query.glob !== undefined) args.push('--glob', query.glob)
  for (const excluded of query.exclude) args.push('--glob', `!${excluded}`)
  args.push('--regexp', query.pattern, '--', target)
  return args
}

/**
 * Run the prepared ripgrep `command` (its `cwd` is the searched directory, or the file's folder)
 * and collect at most `maxMatches` matching lines, stopping ripgrep at the first one beyond.
 * Rejects with `signal`'s reason when it aborts (ripgrep is killed first).
 * @throws WorkspaceToolError (`invalid-request`) when ripgrep refuses the pattern, saying what is
 *   not supported and what to do instead.
 * @throws Error when ripgrep could not run or ended without finishing the search.
 */
export async function searchWithRipgrep(command: Pick<SandboxedCommand, 'argv' | 'cwd' | 'env'>, pattern: string, maxMatches: number, signal: AbortSignal): Promise<RipgrepOutcome> {
  const matches: RipgrepMatch[] = []
  const files = new Set<string>()
  let truncated = false
  let filesSearched: number | undefined
  const enough = new AbortController()
  // The start of a line whose end has not come yet, in pieces: joined once when it ends, so a
  // 2 MiB line arriving in 64 KiB chunks is not copied again with every chunk (a review measured
  // another session waiting 178 ms behind such a search).
  let pending: string[] = []
  const onLine = (line: string) => {
    if (truncated) return
    const separator = line.indexOf('\0')
    if (separator < 0) {
      // Not a match: the statistics at the end, or a note ("binary file matches").
      const searched = /^(\d+) files searched$/.exec(line)
      if (searched) filesSearched = Number(searched[1])
      return
    }
    const numbered = /^(\d+):/.exec(line.slice(separator + 1))
    if (!numbered) return
    if (matches.length === maxMatches) {
      truncated = true
      enough.abort()
      return
    }
    const file = path.resolve(command.cwd, line.slice(0, separator))
    files.add(file)
    matches.push({ file, line: Number(numbered[1]), text: line.slice(separator + 1 + numbered[0].length).replace(/\r$/, '') })
  }
  const result = await runProcess({
    argv: command.argv,
    cwd: command.cwd,
    env: command.env,
    signal: AbortSignal.any([signal, enough.signal]),
    killGraceMs: KILL_GRACE_MS,
    maxOutputBytes: 64 * 1024,
    onOutput: (chunk, stream) => {
      if (stream !== 'stdout') return
      let from = 0
      for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', from)) {
        pending.push(chunk.slice(from, newline))
        onLine(pending.join(''))
        pending = []
        from = newline + 1
      }
      if (from < chunk.length) pending.push(chunk.slice(from))
    },
  })
  if (signal.aborted) throw signal.reason
  if (truncated) return { matches, filesSearched: files.size, truncated }
  onLine(pending.join(''))
  if (result.exitCode === 2 && /regex parse error|error parsing regex|exceeds size limit/i.test(result.stderr)) throw patternError(pattern, result.stderr)
  if (filesSearched === undefined) {
    // No summary: ripgrep did not finish (the sandbox could not start it, or it crashed).
    throw new Error(`search could not run ripgrep (exit ${result.exitCode ?? result.signal}): ${result.stderr.trim().slice(0, 500) || 'no output'}`)
  }
  return { matches, filesSearched, truncated }
}

/** ripgrep's refusal as a model-facing argument error: what is not supported, and what to do instead. */
function patternError(pattern: string, stderr: string): WorkspaceToolError {
  // ripgrep suggests --pcre2, which search does not offer: drop that hint.
  const reason = stderr.replace(/\n*Consider enabling PCRE2[\s\S]*$/, '').trim()
  const hint = /look-around/.test(reason)
    ? `${LOOK_AROUND_HINT}.`
    : /backreference/.test(reason)
      ? `${BACKREFERENCE_HINT}.`
      : /size limit/.test(reason)
        ? 'The pattern compiles to too large a program: use smaller repetition counts.'
        : 'Use Rust regex syntax (like JavaScript\'s, without look-around or backreferences; named groups are (?P<name>...); escape only regex metacharacters, e.g. "/" needs no backslash).'
  return new WorkspaceToolError('invalid-request', `pattern ${JSON.stringify(pattern)} is not a valid regular expression for search (ripgrep's linear-time engine): ${reason}\n${hint}`, { pattern })
}
