/**
 * Declaration size (SPEC S9.1; issue 11 item 5): the o200k tokens (`gpt-tokenizer`) of the whole
 * `run_code` description exactly as a `ptc serve` session lists it over MCP (an SDK client on an
 * in-memory transport calls `tools/list`) on a host from `createHost({ builtins: 'none' })` (the
 * option `--builtins none` maps to), for the tools of two official MCP servers, against their targets; then the same with the built-in tools, to show
 * their share. Sizes, not timings: this section prints a table and measures no case.
 */
import { createRequire } from 'node:module'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { createHost } from '../src/host/create-host.ts'
import type { McpServerConfig } from '../src/mcp/mcp-config.ts'
import { openSession } from '../src/server/mcp-session.ts'
import { createRunLimiter } from '../src/server/run-limiter.ts'
import type { Section } from './harness.ts'

const resolvePackage = createRequire(import.meta.url).resolve
const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-bench-declarations-')))

/** The servers measured, with the issue's targets (o200k tokens of the `run_code` description). */
const SERVERS: { label: string; name: string; config: McpServerConfig; target: number }[] = [
  {
    label: '@modelcontextprotocol/server-filesystem',
    name: 'fs',
    config: { command: process.execPath, args: [resolvePackage('@modelcontextprotocol/server-filesystem/dist/index.js'), workspace] },
    target: 1_400,
  },
  {
    label: '@cyanheads/git-mcp-server',
    name: 'git',
    config: {
      command: process.execPath,
      args: [resolvePackage('@cyanheads/git-mcp-server/index.js')],
      env: { MCP_TRANSPORT_TYPE: 'stdio', MCP_LOG_LEVEL: 'error', PATH: process.env.PATH ?? '' },
    },
    target: 9_500,
  },
]

/** Counts of one listing: tools declared, characters and tokens of `run_code`'s description. */
interface Listing {
  tools: number
  chars: number
  tokens: number
}

/**
 * `run_code`'s description as one `ptc serve` session lists it, on a host made by `createHost`
 * with `builtins` (`'none'` is `ptc serve --builtins none`) and the tools of `server` if given;
 * no state folder is written.
 */
async function listRunCode(options: { builtins: 'none' | undefined; server?: { name: string; config: McpServerConfig } }): Promise<Listing> {
  const host = await createHost({
    workspace,
    stateDir: false,
    ...(options.builtins && { builtins: options.builtins }),
    ptc: { isolation: 'inline', poolSize: 0 },
    // mcp-import's `warn` rides along on the config object: a tool left out is the server's business here.
    ...(options.server && { mcpConfig: { mcpServers: { [options.server.name]: options.server.config }, warn: () => {} } as never }),
  })
  try {
    const session = await openSession(host.ctx, { exposeTools: false, limiter: createRunLimiter(), journalDir: false })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    const client = new Client({ name: 'bench', version: '0' })
    await client.connect(clientSide)
    const description = (await client.listTools()).tools.find((tool) => tool.name === 'run_code')?.description ?? ''
    const tools = host.ctx.ptc.visibleTools().length
    await client.close()
    await session.close()
    return { tools, chars: description.length, tokens: countTokens(description) }
  } finally {
    await host.dispose()
  }
}

const format = (value: number) => value.toLocaleString('en-US')

async function report(): Promise<string[]> {
  const rows: string[][] = []
  const bare = await listRunCode({ builtins: 'none' })
  const builtins = await listRunCode({ builtins: undefined })
  rows.push(['run_code alone (no tools)', String(bare.tools), format(bare.chars), format(bare.tokens), '', ''])
  rows.push(['built-in tools only', String(builtins.tools), format(builtins.chars), format(builtins.tokens), '', ''])
  for (const server of SERVERS) {
    const imported = await listRunCode({ builtins: 'none', server })
    const both = await listRunCode({ builtins: undefined, server })
    const verdict = imported.tokens <= server.target ? 'met' : `over by ${format(imported.tokens - server.target)}`
    rows.push([`${server.label}, no built-ins`, String(imported.tools), format(imported.chars), format(imported.tokens), `≤ ${format(server.target)}`, verdict])
    const share = both.tokens - imported.tokens
    rows.push([`${server.label} + built-ins`, String(both.tools), format(both.chars), format(both.tokens), `built-ins: ${format(share)} (${Math.round((share / both.tokens) * 100)} %)`, ''])
  }
  const header = ['run_code description as `ptc serve` lists it', 'tools', 'chars', 'o200k tokens', 'target', '']
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) => `| ${cells.map((cell, column) => (column === 0 || column === 5 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`
  return [line(header), `|${widths.map((width) => ` ${'-'.repeat(width)} `).join('|')}|`, ...rows.map(line)]
}

/** Registered in `run.ts`; `runSection` prints `report()` instead of timing cases. */
export const declarations: Section = { name: 'declarations (o200k tokens)', cases: () => [], options: {}, report }
