/**
 * `ptc view` end to end in a real browser (S11.6): `ptc serve --http` runs scripts in a temp
 * workspace while the viewer follows its journal; the page shows the run, its parallel calls
 * nested under it and the denial live, and the same again after a reload (from the journal).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startViewer, type ViewerHandle } from '../../src/view/view-server.ts'
import { runPtc } from './ptc-cli.ts'
import { httpServer, SERVE_TOOLS, type HttpChild } from './serve-helpers.ts'
import { ARTIFACTS, launchChromium } from './view-browser.ts'

// Run A waits in `meet` until run B's `meet` arrives, so the test decides when A may finish:
// what the page shows before that was drawn live, while the calls were running.
const RUN_A = `const [met, echoes] = await Promise.all([
  tools.meet({ ms: 60000 }),
  Promise.all([tools.echo({ text: 'one' }), tools.echo({ text: 'two' })]),
])
let denied = ''
try {
  await tools.guarded({})
} catch (error) {
  denied = (error as Error).message
}
console.log('done')
return { met: met.met, echoes: echoes.map((echo) => echo.text), denied }`
const RUN_B = 'return await tools.meet({ ms: 60000 })'
/** How long to wait for the page to show something (generous: the machine is shared). */
const POLL = { timeout: 20_000, interval: 100 }

describe('ptc view follows ptc serve live in Chromium (S11.6)', { timeout: 120_000 }, () => {
  let workspace: string
  let server: HttpChild
  let viewer: ViewerHandle
  let browser: Browser
  let client: Client
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-view-e2e-'))
    writeFileSync(join(workspace, 'README.txt'), 'a workspace\n')
    ;[server, viewer, browser] = await Promise.all([
      httpServer(['--workspace', workspace, '--tools', SERVE_TOOLS, '--checkers', '1']),
      startViewer({ workspace, port: 0 }),
      launchChromium(),
    ])
    // The first run of a fresh server starts its type checker, which on a loaded machine can miss
    // its start-up deadline; warm it from a separate session so the test's session sees the
    // behaviour under test, not the start-up.
    const warm = new Client({ name: 'view-e2e-warm-up', version: '1' })
    await warm.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await warm.callTool({ name: 'run_code', arguments: { code: 'return 1' } }, undefined, { timeout: 80_000 })
      if ((result.structuredContent as { status?: string } | undefined)?.status === 'ok') break
    }
    await warm.close()
  }, 180_000)
  afterAll(async () => {
    await client?.close().catch(() => {})
    await Promise.all([server?.stop(), viewer?.close(), browser?.close()])
    rmSync(workspace, { recursive: true, force: true })
  })

  const call = (selector: string, page: Page) => page.locator(selector).first()

  it('S11.6 the run, its parallel calls nested under it and the denial appear live, and again after a reload', async () => {
    client = new Client({ name: 'view-e2e', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(viewer.url)
    try {
      await steps(page, errors)
    } catch (error) {
      await page.screenshot({ path: join(ARTIFACTS, 'view-live-failure.png'), fullPage: true })
      throw error
    }
  })

  it('S11.6 a ptc run in the same workspace appears as a new session, opened by itself, with its calls nested', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(viewer.url)
    await page.locator('.session [data-role="state"]', { hasText: 'live' }).waitFor()
    const before = await page.locator('.session-row').count()
    writeFileSync(join(workspace, 'script.ts'), "const [a, b] = await Promise.all([tools.read_file({ path: 'README.txt' }), tools.glob({ pattern: '*.txt' })])\nreturn { text: a.text, paths: b.paths }\n")
    const run = await runPtc(['run', 'script.ts', '--workspace', workspace, '--json'], workspace)
    expect(run.code).toBe(0)
    await expect.poll(() => page.locator('.session-row').count(), POLL).toBe(before + 1)
    await page.locator('.session h2', { hasText: 'cli' }).waitFor(POLL)
    const children = page.locator('article.run[data-outcome="ok"] > .call-children > article')
    await expect.poll(() => children.evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute('data-tool')}:${node.getAttribute('data-outcome')}`).sort()), POLL).toEqual(['glob:ok', 'read_file:ok'])
    expect(await page.locator('article[data-tool="read_file"] .card-read').innerText()).toContain('a workspace')
    await page.close()
  })

  async function steps(page: Page, errors: string[]): Promise<void> {
    // The newest session (this client's) is opened by itself.
    await page.locator('.session-row.selected').waitFor()
    await page.locator('.session [data-role="state"]', { hasText: 'live' }).waitFor()

    const runA = client.callTool({ name: 'run_code', arguments: { code: RUN_A } }, undefined, { timeout: 80_000 })
    const run = call('article.run', page)
    await call('article.run[data-outcome="running"] article[data-tool="meet"][data-outcome="running"]', page).waitFor()
    await expect.poll(() => run.locator('article[data-tool="echo"][data-outcome="ok"]').count(), POLL).toBe(2)
    await expect.poll(() => run.locator('.script').textContent(), POLL).toContain('tools.meet({ ms: 60000 })')
    await page.screenshot({ path: join(ARTIFACTS, 'view-run-live.png') })

    const runB = client.callTool({ name: 'run_code', arguments: { code: RUN_B } }, undefined, { timeout: 80_000 })
    const [resultA] = await Promise.all([runA, runB])
    expect(resultA.structuredContent).toMatchObject({ status: 'ok', value: { met: true, echoes: ['one', 'two'] } })

    const checkFinished = async () => {
      const first = call('article.run', page)
      await call('article.run[data-outcome="ok"] article[data-tool="guarded"][data-outcome="denied"]', page).waitFor()
      const children = first.locator(':scope > .call-children > article')
      await expect.poll(() => children.evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute('data-tool')}:${node.getAttribute('data-outcome')}`)), POLL).toEqual(['meet:ok', 'echo:ok', 'echo:ok', 'guarded:denied'])
      const guarded = first.locator('article[data-tool="guarded"]')
      expect(await guarded.locator('[data-role="approval"]').textContent()).toBe('asked → not obtained')
      expect(await guarded.locator('.call-reason').textContent()).toMatch(/needs approval.*could not be obtained.*did not declare the elicitation capability/)
      await expect.poll(() => first.locator('.run-result').textContent(), POLL).toContain('"met": true')
      expect(await first.locator('.run-logs').textContent()).toContain('done')
      await expect.poll(() => page.locator('article.run').count(), POLL).toBe(2)
      await expect.poll(() => page.locator('.session-row.selected .row-counts').textContent(), POLL).toMatch(/2 runs · 7 calls · 1 failed/)
    }
    await checkFinished()
    await page.screenshot({ path: join(ARTIFACTS, 'view-run-finished.png') })

    await page.reload()
    await page.locator('.session [data-role="state"]', { hasText: 'live' }).waitFor()
    await checkFinished()
    await page.screenshot({ path: join(ARTIFACTS, 'view-run-reloaded.png'), fullPage: true })
    expect(errors).toEqual([])
  }
})
