/**
 * The `--mcp-config` file (SPEC S9.1 "every visible registered tool", S2.2): the usual
 * `{"mcpServers": {name: {command, args?, env?}}}` shape that MCP clients use, plus these
 * ptc-runner fields per server: `cwd`, `parallel` (S2.2: imported tools are exclusive unless this
 * is `true`), `timeoutMs` (per-call budget, default 60,000 ms), and `include`/`exclude`/`rename`
 * (which tools to import, and under which name). Validated with zod, so a typo
 * is a readable error naming the server and the field.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { z } from 'zod'
import { PtcError } from '../errors/ptc-error.ts'

/** Default per-call budget of an imported tool, in ms. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000

const serverSchema = z
  .object({
    command: z.string({ error: 'needs a "command" (only stdio servers can be imported)' }).min(1, 'command must not be empty'),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    parallel: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
    rename: z.record(z.string(), z.string().min(1, 'a new name must not be empty')).optional(),
  })
  .loose()

/** Zod schema of the whole file; extra keys are tolerated so existing client configs load. */
export const mcpConfigSchema = z
  .object({
    mcpServers: z.record(z.string().min(1, 'a server name must not be empty'), serverSchema),
  })
  .loose()

/** One server to start: what the SDK's stdio client needs, plus its import options. */
export interface McpServerConfig {
  command: string
  args: string[]
  env?: Record<string, string>
  /** Working folder of the server process (resolved against the config file's folder). */
  cwd?: string
  /** S2.2: `true` lets this server's tools overlap their siblings; default exclusive. */
  parallel?: boolean
  /** Per-call budget in ms (default {@link DEFAULT_MCP_TIMEOUT_MS}); start-up gets at least 30 s. */
  timeoutMs?: number
  /** Import only these tools (by the server's own names). */
  include?: string[]
  /** Leave these tools out (by the server's own names). */
  exclude?: string[]
  /** Server tool name → the name to use after `<server>__` (e.g. to resolve a name collision). */
  rename?: Record<string, string>
}

/**
 * A config as a caller writes it (`createHost`'s `mcpConfig` object, a config file's JSON): the
 * same as {@link McpConfig} with each server's `args` optional (default `[]`).
 */
export interface McpConfigInput {
  mcpServers: Record<string, Omit<McpServerConfig, 'args'> & { args?: string[] }>
}

/** A validated config: server name → server. */
export interface McpConfig {
  mcpServers: Record<string, McpServerConfig>
}

/** The config file could not be read, is not JSON, or does not match the shape. */
export class McpConfigError extends PtcError {
  constructor(message: string, file: string | undefined) {
    super('mcp-config', message, { details: { file } })
  }
}

/**
 * Validate a parsed config. `baseDir` resolves relative `cwd`s.
 * @throws McpConfigError listing every problem as `mcpServers.<name>.<field>: message`.
 */
export function parseMcpConfig(input: unknown, options: { file?: string; baseDir?: string } = {}): McpConfig {
  const parsed = mcpConfigSchema.safeParse(input)
  const where = options.file ? ` in ${options.file}` : ''
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issuePath(issue.path) || '(root)'}: ${issueMessage(issue)}`)
    throw new McpConfigError(`Invalid MCP config${where}; expected {"mcpServers": {name: {command, args?, env?, cwd?, parallel?, timeoutMs?, include?, exclude?, rename?}}}:\n${problems.join('\n')}`, options.file)
  }
  const servers: Record<string, McpServerConfig> = {}
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    servers[name] = {
      command: server.command,
      args: server.args,
      ...(server.env && { env: server.env }),
      ...(server.cwd !== undefined && { cwd: resolve(options.baseDir ?? '.', server.cwd) }),
      ...(server.parallel !== undefined && { parallel: server.parallel }),
      ...(server.timeoutMs !== undefined && { timeoutMs: server.timeoutMs }),
      ...(server.include && { include: server.include }),
      ...(server.exclude && { exclude: server.exclude }),
      ...(server.rename && { rename: server.rename }),
    }
  }
  return { mcpServers: servers }
}

/**
 * Read and validate a config file.
 * @throws McpConfigError when the file cannot be read, is not JSON, or is invalid.
 */
export function loadMcpConfig(file: string): McpConfig {
  const path = resolve(file)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpConfigError(`Cannot read the MCP config ${path}: ${(error as Error).message}`, path)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new McpConfigError(`The MCP config ${path} is not valid JSON: ${(error as Error).message}`, path)
  }
  return parseMcpConfig(json, { file: path, baseDir: dirname(path) })
}

/** A zod issue's path as `mcpServers.fs.args.0`, with a key that is no plain name quoted: `mcpServers[""]`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === 'string' && /^[A-Za-z_$][\w$-]*$/.test(key) ? `${index > 0 ? '.' : ''}${key}` : typeof key === 'number' ? `.${key}` : `[${JSON.stringify(String(key))}]`)).join('')
}

/** zod's message, or for a record key that failed (zod says only "Invalid key in record") the key's own problem. */
function issueMessage(issue: z.core.$ZodIssue): string {
  return issue.code === 'invalid_key' && issue.issues[0] !== undefined ? issue.issues[0].message : issue.message
}
