/**
 * Helpers for the `ptc serve` end-to-end tests: the command line of `bin/ptc.js`, a stdio client
 * that spawns it, and an HTTP server child whose URL is read from its stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

export const BIN = fileURLToPath(new URL('../../bin/ptc.js', import.meta.url))
export const SERVE_TOOLS = fileURLToPath(new URL('../fixtures/serve-tools.ts', import.meta.url))
export const FAKE_SERVER = fileURLToPath(new URL('../fixtures/fake-mcp-server.ts', import.meta.url))
// As the bin's `#!/usr/bin/env node` line starts it: no `--no-node-snapshot` (isolated-vm needs it
// only in the isolate worker process, which gets it), as for `runPtc` in ptc-cli.ts.
export const NODE_ARGS = [BIN]

/** Spawn `ptc serve --stdio …args` and connect an SDK client to it. `client.close()` stops it. */
export async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [...NODE_ARGS, 'serve', '--stdio', ...args], stderr: 'ignore' }))
  return client
}

/** A `ptc serve --http` child and its endpoint. */
export interface HttpChild {
  child: ChildProcess
  url: string
  stop(): Promise<void>
}

/** Spawn `ptc serve --http --port 0 …args`; resolves once it prints its URL. */
export function httpServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<HttpChild> {
  const child = spawn(process.execPath, [...NODE_ARGS, 'serve', '--http', '--port', '0', ...args], { env: { ...process.env, PTC_SERVE_TOKEN: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(stderr)
      if (match) resolve({ child, url: match[1]!, stop: () => stopChild(child) })
    })
    child.once('exit', (code) => reject(new Error(`ptc serve exited (${code}) before listening: ${stderr}`)))
  })
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the child is gone. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 3_000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** The canonical `run_code` value of a call. */
export type RunValue = { status: string; value?: unknown; error?: { name: string; message: string }; logs: unknown[] }
