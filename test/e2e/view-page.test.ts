/**
 * The `ptc view` page in a real browser (S11.6, S11.1): hostile journal content stays text,
 * the card kinds and a plugin's card are drawn from raw records, jobs link to their output, and
 * a viewer started with a token asks for it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startViewer, type ViewerHandle } from '../../src/view/view-server.ts'
import { ARTIFACTS, launchChromium } from './view-browser.ts'

const POLL = { timeout: 20_000, interval: 100 }

/** Write `records` (and raw `extra` lines) as the journal `name` of a new workspace. */
function workspaceWith(name: string, records: object[], extra = ''): string {
  const workspace = mkdtempSync(join(tmpdir(), 'ptc-view-page-'))
  mkdirSync(join(workspace, '.ptc', 'journal'), { recursive: true })
  writeFileSync(join(workspace, '.ptc', 'journal', name), records.map((record, index) => `${JSON.stringify({ ...record, seq: index + 1 })}\n`).join('') + extra)
  return workspace
}

const call = (callId: string, name: string, args: unknown, agent = 'cli') => ({ type: 'tool/call', callId, name, arguments: args, agent, fromCode: callId.includes('/') })
const done = (callId: string, name: string, extra: object) => ({ type: 'tool/result', callId, name, arguments: {}, agent: 'cli', isError: false, content: [], durationMs: 3, ...extra })

const PWN = (tag: string) => `window.__pwned = '${tag}'`
const HOSTILE = [
  call('run"><script>1', 'run_code', { code: `</script><script>${PWN('code')}</script>\nreturn '<img src=x onerror="${PWN('img')}">'` }, `<img src=x onerror="${PWN('agent')}">`),
  call('run"><script>1/a:1', 'web_fetch', { url: `javascript:${PWN('url')}` }),
  done('run"><script>1/a:1', 'web_fetch', { value: { title: `<script>${PWN('title')}</script>`, url: 'javascript:alert(1)' }, content: [{ type: 'text', text: `<img src=x onerror="${PWN('content')}">` }] }),
  call('run"><script>1/a:2', 'bash', { command: `<script>${PWN('cmd')}</script>`, cwd: '<svg onload=alert(1)>' }),
  done('run"><script>1/a:2', 'bash', { value: { exitCode: 0, signal: null, stdout: `<img src=x onerror="${PWN('stdout')}">`, stderr: '<iframe src="javascript:alert(1)"></iframe>', truncated: false, timedOut: false } }),
  call('run"><script>1/a:3', 'edit_file', { path: '<a href="javascript:alert(1)">x</a>' }),
  done('run"><script>1/a:3', 'edit_file', { value: { path: '<a href="javascript:alert(1)">x</a>', created: false, linesAdded: 1, linesRemoved: 1, hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: [`-<svg onload="${PWN('diff')}">`, '+<math><mtext><script>alert(1)</script>'] }] } }),
  call('run"><script>1/a:4', 'read_file', { path: 'x' }),
  done('run"><script>1/a:4', 'read_file', { value: { path: '<object data="javascript:alert(1)">', text: `<script>${PWN('read')}</script>`, startLine: 1, endLine: 1, totalLines: 1 } }),
  call('run"><script>1/a:5', 'search', { pattern: '<style>*{display:none}</style>' }),
  done('run"><script>1/a:5', 'search', { value: { files: [{ path: '<img src=x onerror=alert(1)>', matches: [{ line: 1, text: `<script>${PWN('match')}</script>` }] }] } }),
  call('run"><script>1/a:6', '<b onmouseover=alert(1)>tool</b>', { '<img src=x onerror=alert(1)>': 'javascript:alert(1)' }),
  done('run"><script>1/a:6', '<b onmouseover=alert(1)>tool</b>', { isError: true, error: { kind: 'denied', message: `<script>${PWN('error')}</script>` } }),
  done('run"><script>1', 'run_code', { value: { status: 'ok', value: { html: `<script>${PWN('value')}</script>`, link: 'javascript:alert(1)' }, logs: [{ level: 'warn', text: `<img src=x onerror="${PWN('log')}">` }], toolCalls: 6, durationMs: 5 } }),
]

describe('ptc view page in Chromium (S11.6)', { timeout: 60_000 }, () => {
  let browser: Browser
  const workspaces: string[] = []
  const viewers: ViewerHandle[] = []
  beforeAll(async () => {
    browser = await launchChromium()
  }, 30_000)
  afterAll(async () => {
    await Promise.all([browser?.close(), ...viewers.map((viewer) => viewer.close())])
    for (const workspace of workspaces) rmSync(workspace, { recursive: true, force: true })
  })

  async function open(records: object[], options: { extra?: string; plugins?: string[]; token?: string; hash?: string } = {}): Promise<{ page: Page; problems: string[]; workspace: string }> {
    const workspace = workspaceWith('2026-12-01T08-00-00-000Z-1.jsonl', records, options.extra)
    workspaces.push(workspace)
    const viewer = await startViewer({ workspace, port: 0, ...(options.plugins && { plugins: options.plugins }), ...(options.token && { token: options.token }) })
    viewers.push(viewer)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const problems: string[] = []
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`)
      void dialog.dismiss()
    })
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content.Security|Trusted/i.test(message.text())) problems.push(`console: ${message.text()}`)
    })
    await page.goto(`${viewer.url}${options.hash ?? ''}`)
    return { page, problems, workspace }
  }

  it('S11.6 journal values with <script>, <img onerror> and javascript: URLs are shown as text and nothing runs', async () => {
    const { page, problems } = await open(HOSTILE, { extra: `<script>${PWN('line')}</script>\n` })
    await page.locator('article.run[data-outcome="ok"]').waitFor(POLL)
    await page.locator('details').evaluateAll((all) => all.forEach((details) => details.setAttribute('open', '')))
    await page.locator('article.call').first().hover()
    await page.locator('article.call').nth(6).hover()
    await page.screenshot({ path: join(ARTIFACTS, 'view-hostile-journal.png'), fullPage: true })
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(problems).toEqual([])
    // Nothing from the journal became an element: the only script is the app, no images, frames, links.
    expect(await page.evaluate("[...document.querySelectorAll('script, img, iframe, object, svg, math, a, style, b')].map((node) => node.outerHTML)")).toEqual(['<script type="module" src="/assets/app.js"></script>'])
    const text = await page.locator('body').innerText()
    for (const shown of [`</script><script>${PWN('code')}</script>`, `<img src=x onerror="${PWN('content')}">`, `fetch javascript:${PWN('url')}`, `$ <script>${PWN('cmd')}</script>`, `-<svg onload="${PWN('diff')}">`, `<script>${PWN('error')}</script>`, `[warn] <img src=x onerror="${PWN('log')}">`, 'a line that is not JSON; skipped']) {
      expect(text).toContain(shown)
    }
    expect(await page.locator('.session-row .row-agent').innerText()).toBe(`<img src=x onerror="${PWN('agent')}">`)
    // Defence in depth: the page's Trusted Types policy refuses HTML strings outright.
    const attempt = `try { document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.__pwned=1">'); 'inserted' } catch (error) { error.name }`
    expect(await page.evaluate(attempt)).toBe('TypeError')
  })

  it('S11.1 each card kind is a client component from raw records, a plugin registers its own, and a job links to its output', async () => {
    const plugin = join(mkdtempSync(join(tmpdir(), 'ptc-view-plugin-')), 'deploy-card.js')
    workspaces.push(join(plugin, '..'))
    writeFileSync(plugin, `export default function (viewer) {
  viewer.registerCard('tool:deploy', { render: (node, dom) => dom.el('div', { class: 'deploy-card' }, 'deployed ' + node.call.arguments.service) })
}
`)
    const { page, problems } = await open(
      [
        call('r', 'run_code', { code: "await tools.bash({ command: 'ls' })" }),
        call('r/a:1', 'bash', { command: 'ls -1' }),
        done('r/a:1', 'bash', { value: { exitCode: 0, signal: null, stdout: 'a.txt\nb.txt\n', stderr: '', truncated: false, timedOut: false } }),
        call('r/a:2', 'edit_file', { path: 'a.txt', old: 'x', new: 'y' }),
        done('r/a:2', 'edit_file', { value: { path: 'a.txt', created: false, linesAdded: 1, linesRemoved: 1, hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-x', '+y'] }] } }),
        call('r/a:3', 'read_file', { path: 'a.txt' }),
        done('r/a:3', 'read_file', { value: { path: 'a.txt', text: 'first\nsecond', startLine: 1, endLine: 2, totalLines: 2 } }),
        call('r/a:4', 'search', { pattern: 'sec' }),
        done('r/a:4', 'search', { value: { files: [{ path: 'a.txt', matches: [{ line: 2, text: 'second' }] }] } }),
        call('r/a:5', 'web_search', { query: 'ptc runner' }),
        done('r/a:5', 'web_search', { content: [{ type: 'text', text: '3 results' }] }),
        call('r/a:6', 'deploy', { service: 'api' }),
        done('r/a:6', 'deploy', { value: {} }),
        call('r/a:7', 'bash', { command: 'make', background: true }),
        done('r/a:7', 'bash', { value: { kind: 'background', jobId: 'bash-1' } }),
        call('r/a:8', 'other_tool', { x: 1 }),
        done('r/a:8', 'other_tool', { content: [{ type: 'text', text: 'plain words' }] }),
        call('r/a:9', 'job_read', { jobId: 'bash-1' }),
        done('r/a:9', 'job_read', { content: [{ type: 'text', text: 'built' }] }),
        done('r', 'run_code', { value: { status: 'ok', value: 1, logs: [], toolCalls: 9, durationMs: 9 } }),
      ],
      { plugins: [plugin] },
    )
    await page.locator('article.run[data-outcome="ok"]').waitFor(POLL)
    const drawn = async (tool: string, selector: string) => (await page.locator(`article[data-tool="${tool}"] ${selector}`).first().innerText()).trim()
    expect(await drawn('bash', '.terminal-command')).toBe('$ ls -1')
    expect(await drawn('bash', '.terminal-output')).toBe('a.txt\nb.txt')
    expect(await drawn('edit_file', '.diff-add')).toBe('+y')
    expect(await drawn('read_file', '.card-read')).toMatch(/1 first\s+2 second/)
    expect(await drawn('search', '.search-path')).toBe('a.txt')
    expect(await drawn('web_search', '.card-web .card-location')).toBe('search “ptc runner”')
    expect(await drawn('deploy', '.deploy-card')).toBe('deployed api')
    expect(await drawn('other_tool', '.card-text')).toBe('plain words')
    await page.screenshot({ path: join(ARTIFACTS, 'view-cards.png'), fullPage: true })
    await page.locator('article[data-tool="bash"] .job-link').click()
    await expect.poll(() => page.locator('article[data-tool="job_read"]').getAttribute('class'), POLL).toMatch(/flash/)
    expect(problems).toEqual([])
  })

  it('without Chromium the browser tests fail saying to run the set-up script, never skip', async () => {
    await expect(launchChromium('/nonexistent/chromium')).rejects.toThrow(/not installed at \/nonexistent\/chromium.*run scripts\/setup\.sh/)
  })

  it('S11.6 a viewer started with a token asks for it, and the #token= fragment opens it', async () => {
    const records = [call('c', 'echo', { text: 'hi' }), done('c', 'echo', { content: [{ type: 'text', text: 'hi' }] })]
    const asked = await open(records, { token: 's3cret' })
    await asked.page.locator('.token-form').waitFor(POLL)
    await asked.page.locator('.token-form input').fill('s3cret')
    await asked.page.locator('.token-form button').click()
    await asked.page.locator('article[data-tool="echo"][data-outcome="ok"]').waitFor(POLL)
    const given = await open(records, { token: 'tok2', hash: '#token=tok2' })
    await given.page.locator('article[data-tool="echo"][data-outcome="ok"]').waitFor(POLL)
    expect(given.page.url()).not.toContain('tok2')
  })
})
