/**
 * `ptc serve --stdio | --http`: be an MCP server exposing run_code (S12). The flags are parsed
 * here; `server/serve-command.ts` turns them into serve options and runs the server.
 */
import { DEFAULT_HTTP_PORT, DEFAULT_MAX_CONCURRENT_RUNS, DEFAULT_MAX_QUEUED_RUNS, DEFAULT_MAX_RUNS_PER_SESSION, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../../server/serve-defaults.ts'
import { defineCommand } from '../command.ts'
import { checkHostFlags, HOST_FLAGS, HOST_FLAGS_HELP, hostOptionsFrom, positiveInt } from '../host-flags.ts'

export default defineCommand({
  order: 50,
  summary: 'be an MCP server exposing run_code (and the job tools; every tool with --expose-tools)',
  usage: `ptc serve --stdio | --http [--host 127.0.0.1] [--port ${DEFAULT_HTTP_PORT}] [--token T]
                 [--session-idle-ms ${DEFAULT_SESSION_IDLE_MS}] [--max-sessions ${DEFAULT_MAX_SESSIONS}]
                 [--expose-tools] [--max-concurrent-runs ${DEFAULT_MAX_CONCURRENT_RUNS}] [--max-running-per-session N/2]
                 [--max-queued-runs ${DEFAULT_MAX_QUEUED_RUNS}] [--max-runs-per-session max(${DEFAULT_MAX_RUNS_PER_SESSION},N)] [--checkers 2]
                 [--workspace DIR] [--tools MODULE]... [--mcp-config FILE] [--preset NAME]
                 [--builtins LIST]`,
  details: `--http binds 127.0.0.1 unless --host is given; any other host needs --token or PTC_SERVE_TOKEN.
--max-concurrent-runs (N) bounds run_code executions across sessions; one session runs at most
--max-running-per-session of them (default N/2 over --http, so no session holds every slot) and
waiting calls start round-robin across sessions. --max-queued-runs bounds the calls waiting for a
slot, --max-runs-per-session one session's running and waiting calls (calls beyond either are
refused at once with isError). --http closes a session idle for --session-idle-ms and answers 503 to a new session
beyond --max-sessions. Each session writes its own journal under .ptc/journal in the workspace;
the newest 100 journals (at most 100 MiB) are kept, older ones deleted as sessions open.
--checkers N type-checking worker processes started with the server and kept warm (default 2,
about 100 MB each): scripts checked at once; more wait for one, within their own deadlines.

${HOST_FLAGS_HELP}`,
  options: {
    stdio: { type: 'boolean' },
    http: { type: 'boolean' },
    host: { type: 'string' },
    port: { type: 'string' },
    token: { type: 'string' },
    'expose-tools': { type: 'boolean' },
    'max-concurrent-runs': { type: 'string' },
    'max-running-per-session': { type: 'string' },
    'max-queued-runs': { type: 'string' },
    'max-runs-per-session': { type: 'string' },
    'session-idle-ms': { type: 'string' },
    'max-sessions': { type: 'string' },
    checkers: { type: 'string' },
    ...HOST_FLAGS,
  },
  positionals: { max: 0 },
  precheck: checkHostFlags,
  async run(values) {
    const checkers = positiveInt(values.checkers, 'checkers')
    const options = { ...(await hostOptionsFrom(values)), ...(checkers !== undefined && { ptc: { checkers } }) }
    // A server's RSS stays flat over many runs (issue 12).
    const { keepYoungGenerationSmall } = await import('../young-generation.ts')
    keepYoungGenerationSmall()
    const { serveCommand } = await import('../../server/serve-command.ts')
    return serveCommand(values, options)
  },
})
