/**
 * The MCP SDK's private fields and behaviour that `src/mcp/sdk-internals.ts` relies on, checked on
 * real SDK objects. An SDK upgrade fails here first: re-check each function of that file against
 * the new SDK, then widen the range below.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { closeRequestStream, replaceSdkReadBuffer, SDK_VERSION_CHECKED, sdkNextRequestId, sdkRequestControllers, sdkStdioChild } from '../../../src/mcp/sdk-internals.ts'

/** The installed SDK's version, from its package.json (found from its resolved entry point). */
function installedSdkVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/server/index.js')
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (manifest.name === '@modelcontextprotocol/sdk') return manifest.version!
    } catch {
      // No package.json here (or the dist folder's type-only one): look further up.
    }
  }
  throw new Error('the package.json of @modelcontextprotocol/sdk was not found')
}

const newServer = () => new Server({ name: 'sdk-internals-test', version: '0' }, { capabilities: {} })

describe('MCP SDK internals (sdk-internals.ts)', () => {
  it('the installed SDK is in the range sdk-internals.ts was checked with (>= 1.32.2, < 1.33)', () => {
    const [major, minor, patch] = installedSdkVersion().split(/[.+-]/).map(Number)
    expect(SDK_VERSION_CHECKED).toBe('1.32.2')
    expect(major === 1 && minor === 32 && patch! >= 2, `installed @modelcontextprotocol/sdk ${installedSdkVersion()}: re-check src/mcp/sdk-internals.ts against it`).toBe(true)
  })

  it("a Server (Protocol) has the private _requestHandlerAbortControllers map and a numeric _requestMessageId", () => {
    const server = newServer()
    expect(Object.keys(server)).toEqual(expect.arrayContaining(['_requestHandlerAbortControllers', '_requestMessageId']))
    expect(sdkRequestControllers(server)).toBeInstanceOf(Map)
    expect(sdkNextRequestId(server)).toBe(0)
  })

  it('StdioServerTransport and StdioClientTransport have the private _readBuffer, which replaceSdkReadBuffer replaces', () => {
    const server = new StdioServerTransport(new PassThrough(), new PassThrough())
    const client = new StdioClientTransport({ command: process.execPath })
    for (const transport of [server, client]) {
      const buffer = {}
      expect(replaceSdkReadBuffer(transport, buffer)).toBe(true)
      expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBe(buffer)
    }
  })

  it('StdioClientTransport keeps its spawned child in the private _process once started', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', "process.stdin.on('end', () => process.exit()).resume()"], stderr: 'ignore' })
    expect(sdkStdioChild(transport)).toBeUndefined()
    await transport.start()
    try {
      expect(sdkStdioChild(transport)?.pid).toBeTypeOf('number')
    } finally {
      await transport.close()
    }
  })

  it('StreamableHTTPServerTransport has closeSSEStream, which closeRequestStream calls; any other transport is left alone', () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    expect(transport.closeSSEStream).toBeTypeOf('function')
    expect(() => closeRequestStream(transport, 1)).not.toThrow()
    expect(() => closeRequestStream({}, 1)).not.toThrow()
  })

  it('each reader degrades, never throws, when its field is missing', () => {
    const bare = {} as unknown as Server
    expect(sdkRequestControllers(bare)).toBeUndefined()
    expect(sdkNextRequestId(bare)).toBeUndefined()
    expect(replaceSdkReadBuffer({}, {})).toBe(false)
    expect(sdkStdioChild({})).toBeUndefined()
  })
})
