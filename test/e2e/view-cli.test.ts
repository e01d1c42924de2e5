/**
 * `ptc view` as a user runs it (S11.6): it prints `listening on URL` on stderr, serves the
 * workspace's journals there until stopped, and refuses a non-loopback bind without a token
 * (exit 2, one line saying what to pass).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { NODE_ARGS, stopChild } from './serve-helpers.ts'

describe('ptc view (S11.6)', { timeout: 60_000 }, () => {
  const workspace = mkdtempSync(join(tmpdir(), 'ptc-view-cli-'))
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))

  it('S11.6 --port 0 picks a free port, prints "listening on URL" on stderr and serves the sessions there', async () => {
    mkdirSync(join(workspace, '.ptc', 'journal'), { recursive: true })
    writeFileSync(join(workspace, '.ptc', 'journal', '2026-12-01T08-00-00-000Z-1.jsonl'), '{"type":"tool/call","callId":"c","name":"echo","arguments":{},"agent":"cli","fromCode":false,"seq":1}\n')
    const child = spawn(process.execPath, [...NODE_ARGS, 'view', '--workspace', workspace, '--port', '0'], { env: { ...process.env, PTC_VIEW_TOKEN: '' }, stdio: ['ignore', 'ignore', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = ''
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString()
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)
          if (match) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`ptc view exited (${code}): ${stderr}`)))
      })
      const page = (await (await fetch(new URL('/api/sessions', url))).json()) as { sessions: { id: string; calls: number }[] }
      expect(page.sessions).toEqual([expect.objectContaining({ id: '2026-12-01T08-00-00-000Z-1.jsonl', calls: 1, agent: 'cli' })])
      expect((await fetch(url)).headers.get('content-security-policy')).toContain("script-src 'self'")
    } finally {
      await stopChild(child)
    }
    expect(child.exitCode).toBe(0)
  })

  it('S11.6 a non-loopback --host without --token is a usage error naming --token (exit 2)', () => {
    const result = spawnSync(process.execPath, [...NODE_ARGS, 'view', '--workspace', workspace, '--host', '0.0.0.0', '--port', '0'], { encoding: 'utf8', env: { ...process.env, PTC_VIEW_TOKEN: '' } })
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/--token/)
    const bad = spawnSync(process.execPath, [...NODE_ARGS, 'view', '--port', 'many'], { encoding: 'utf8' })
    expect([bad.status, bad.stderr.trim().split('\n').length]).toEqual([2, 1])
    expect(bad.stderr).toMatch(/--port takes a whole number/)
  })

  it('S11.6 a port in use is a clear start-up error (exit 2), not an internal error', async () => {
    const { createServer } = await import('node:net')
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const port = String((taken.address() as { port: number }).port)
      const result = spawnSync(process.execPath, [...NODE_ARGS, 'view', '--workspace', workspace, '--port', port], { encoding: 'utf8' })
      expect(result.status).toBe(2)
      expect(result.stderr).toMatch(/EADDRINUSE.*--port/)
    } finally {
      taken.close()
    }
  })
})
