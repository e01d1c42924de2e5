/**
 * The `ptc` command line: `run` (the main job), `check`, `typegen`. Argument parsing is Node's
 * own `util.parseArgs`. Exit codes: 0 success (`run`: status `ok`), 1 the script or check failed,
 * 2 a usage error.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createHost, type HostOptions } from '../host/create-host.ts'
import { PtcError } from '../errors/ptc-error.ts'
import { isPermissionPresetName, PERMISSION_PRESET_NAMES } from '../policy/permission-presets.ts'
import * as ttyApproval from '../policy/tty-approval.ts'
import { callCardText, replayJournal, resultCardText } from '../present/replay.ts'
import { terminalSafe } from '../present/terminal-safe.ts'
import { formatDiagnostics } from '../ptc/compile-diagnostics.ts'
import type { RunCodeValue } from '../ptc/run-code-value.ts'
import { readScript, UsageError } from './read-script.ts'
import { SERVE_USAGE, serveCommand } from '../server/serve-command.ts'

const USAGE = `ptc: run TypeScript that calls tools, with every call through one policy pipeline.

Usage:
  ptc run FILE|- [--json] [--no-typecheck] [--timeout-ms N] [--memory-mb N]
                 [--workspace DIR] [--tools MODULE]... [--journal FILE] [--preset NAME]
  ptc check FILE|- [--workspace DIR] [--tools MODULE]... [--preset NAME]
  ptc typegen [--tools MODULE]... [-o FILE] [--compact] [--preset NAME]
  ptc replay JOURNAL.jsonl [--tools MODULE]...
${SERVE_USAGE}

run      type-check FILE against the tools' generated types, run it in an isolate, print the result
         (--json prints exactly the run_code canonical value). Exit code 0 only for status ok.
check    type-check only; prints diagnostics as line:column.
typegen  print (or write with -o) the declarations scripts are checked against.
replay   print the cards of every call in a journal (ptc run --journal FILE) exactly as the live
         run printed them; damaged lines become notes. Pass the run's --tools for their cards.
serve    be an MCP server exposing run_code (and the job tools; every tool with --expose-tools).
         --http binds 127.0.0.1 unless --host is given; any other host needs --token or
         PTC_SERVE_TOKEN. --max-concurrent-runs bounds run_code executions across sessions;
         --max-queued-runs bounds the calls waiting for one, --max-runs-per-session one session's share
         (calls beyond either are refused at once with isError). --http closes a session idle for
         --session-idle-ms and answers 503 to a new session beyond --max-sessions.

--mcp-config FILE  (run, check, typegen, serve) import the tools of the MCP servers in FILE,
          {"mcpServers": {name: {command, args?, env?, cwd?, parallel?, timeoutMs?}}}, as name__tool.

--preset  read-only | workspace-write (default) | danger-full-access: the sandbox mode and when to
          ask. Approval prompts appear when stdin is a terminal; otherwise every ask is denied.`

const OPTIONS = {
  json: { type: 'boolean' },
  'no-typecheck': { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  'memory-mb': { type: 'string' },
  workspace: { type: 'string' },
  tools: { type: 'string', multiple: true },
  journal: { type: 'string' },
  preset: { type: 'string' },
  output: { type: 'string', short: 'o' },
  compact: { type: 'boolean' },
  'mcp-config': { type: 'string' },
  stdio: { type: 'boolean' },
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'expose-tools': { type: 'boolean' },
  'max-concurrent-runs': { type: 'string' },
  'max-queued-runs': { type: 'string' },
  'max-runs-per-session': { type: 'string' },
  'session-idle-ms': { type: 'string' },
  'max-sessions': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

type Values = ReturnType<typeof parse>['values']

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
}

/** Run the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    // parseArgs says e.g. `Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--bogus"`: keep the first sentence.
    const first = (error as Error).message.split('. ')[0]!.replace(/\.$/, '')
    process.stderr.write(`ptc: ${first}. Run ptc --help for the commands and their flags.\n`)
    return 2
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (values.help || command === 'help' || !command) {
    process.stdout.write(`${USAGE}\n`)
    return values.help || command === 'help' ? 0 : 2
  }
  try {
    const takes = { run: 1, check: 1, replay: 1, typegen: 0, serve: 0 }[command]
    if (takes !== undefined && rest.length > takes) {
      throw new UsageError(`ptc ${command} takes ${takes === 0 ? 'no file argument' : 'one file argument'}; unexpected: ${rest.slice(takes).join(' ')}.`)
    }
    switch (command) {
      case 'run':
        return await run(rest[0], values)
      case 'check':
        return await check(rest[0], values)
      case 'typegen':
        return await typegen(values)
      case 'serve':
        return await serveCommand(values, hostOptions(values, false))
      case 'replay':
        return await replay(rest[0], values)
      default:
        throw new UsageError(`Unknown command "${command}". Commands: run, check, typegen, serve, replay.`)
    }
  } catch (error) {
    // Every refusal the product makes on purpose (usage, tool modules, serve start-up, journal) is a PtcError.
    if (PtcError.isInstance(error)) {
      process.stderr.write(`ptc: ${error.message}\n`)
      return 2
    }
    throw error
  }
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${flag} takes a positive whole number, got "${text}".`)
  return value
}

/** Host options from the flags; `journal` is true for `run` (which also gets the TTY approval responder). */
function hostOptions(values: Values, journal: boolean): HostOptions {
  const memoryMb = positiveInt(values['memory-mb'], 'memory-mb')
  const preset = values.preset
  if (preset !== undefined && !isPermissionPresetName(preset)) {
    throw new UsageError(`--preset takes one of ${PERMISSION_PRESET_NAMES.join(', ')}, got "${preset}".`)
  }
  return {
    workspace: values.workspace ?? '.',
    ...(preset !== undefined && { preset }),
    // S8.2: a person can answer approval prompts only at a terminal; headless, asks are denied.
    ...(journal && process.stdin.isTTY && {
      setup: async (ctx) => {
        await ctx.plugin(ttyApproval)
      },
    }),
    toolModules: values.tools ?? [],
    ...(values['mcp-config'] !== undefined && { mcpConfig: values['mcp-config'] }),
    ...(!journal ? { journal: false } : values.journal !== undefined && { journal: values.journal }),
    ptc: { ...(memoryMb !== undefined && { limits: { memoryMb } }) },
  }
}

async function run(file: string | undefined, values: Values): Promise<number> {
  const code = await readScript(file)
  const timeoutMs = positiveInt(values['timeout-ms'], 'timeout-ms')
  const host = await createHost(hostOptions(values, true))
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  try {
    if (!values.json) {
      // S11.1, S11.3: a card per tool call, pending then completed, as plain text on stderr,
      // through the very functions `ptc replay` uses, so a replay reproduces this output.
      const lookup = (name: string) => host.ctx.tools.get(name)
      host.ctx.on('tool/call', (call) => process.stderr.write(callCardText(lookup, call)))
      host.ctx.on('tools/result', (result) => process.stderr.write(resultCardText(lookup, result)))
    }
    const result = await host.ctx.tools.execute(
      { name: 'run_code', arguments: { code, ...(values['no-typecheck'] && { typecheck: false }), ...(timeoutMs !== undefined && { timeoutMs }) } },
      { agent: 'cli', signal: stop.signal },
    )
    if (result.isError) {
      // run_code itself was refused (policy) or failed: not a script status.
      process.stderr.write(`ptc: run_code failed: ${terminalSafe(result.error?.message ?? '')}\n`)
      return 1
    }
    const value = result.value as RunCodeValue
    if (values.json) {
      process.stdout.write(`${JSON.stringify(value)}\n`)
    } else {
      // Script-controlled text is made terminal-safe: a script cannot drive the operator's terminal.
      for (const entry of value.logs) process.stderr.write(`${entry.level === 'log' ? '' : `[${entry.level}] `}${terminalSafe(entry.text)}\n`)
      if (value.diagnostics?.length) process.stderr.write(`${formatDiagnostics(value.diagnostics)}\n`)
      if (value.status === 'ok') {
        if (value.value !== undefined) process.stdout.write(`${terminalSafe(JSON.stringify(value.value, null, 2))}\n`)
      } else {
        process.stderr.write(terminalSafe(`status: ${value.status}${value.error ? ` — ${value.error.name}: ${value.error.message}` : ''}`) + '\n')
      }
    }
    return value.status === 'ok' ? 0 : 1
  } finally {
    process.off('SIGINT', onSignal)
    await host.dispose()
  }
}

/**
 * `ptc replay JOURNAL.jsonl` (S11.3, S11.5): the cards of every call in the journal, on stdout,
 * through the same presenters and formatter as the live run. The host only supplies the tool
 * definitions: nothing runs, no journal is written, MCP servers are not started (their tools have
 * generic cards, which replay gives unknown tools too). Exit 0; 2 when the file cannot be read.
 */
async function replay(file: string | undefined, values: Values): Promise<number> {
  if (!file) throw new UsageError('replay needs a journal file: ptc replay JOURNAL.jsonl')
  let text: string
  try {
    text = readFileSync(resolve(file), 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read the journal ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  const host = await createHost({ workspace: values.workspace ?? '.', toolModules: values.tools ?? [], journal: false })
  try {
    process.stdout.write(replayJournal(text, (name) => host.ctx.tools.get(name)))
    return 0
  } finally {
    await host.dispose()
  }
}

async function check(file: string | undefined, values: Values): Promise<number> {
  const code = await readScript(file)
  const host = await createHost(hostOptions(values, false))
  try {
    const diagnostics = await host.ctx.ptc.check(code)
    if (diagnostics.length > 0) process.stdout.write(`${formatDiagnostics(diagnostics)}\n`)
    return diagnostics.some((d) => d.category === 'error') ? 1 : 0
  } finally {
    await host.dispose()
  }
}

async function typegen(values: Values): Promise<number> {
  const host = await createHost(hostOptions(values, false))
  try {
    const text = await host.ctx.ptc.declarations({ compact: values.compact ?? false })
    if (values.output) {
      // Atomic: a reader never sees half a declaration file.
      const target = resolve(values.output)
      const temp = `${target}.${process.pid}.tmp`
      try {
        writeFileSync(temp, text)
        renameSync(temp, target)
      } catch (error) {
        rmSync(temp, { force: true })
        throw new UsageError(`Cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Check that its folder exists and is writable.`)
      }
      process.stderr.write(`wrote ${target}\n`)
    } else {
      process.stdout.write(text)
    }
    return 0
  } finally {
    await host.dispose()
  }
}
