/**
 * `ptc view`'s single-page app (SPEC S11.6): the sessions list on the left (newest first, paged,
 * refreshed every two seconds), the chosen session's timeline on the right (the newest session
 * until the user picks one, so a new run shows up by itself). Viewer plugins named by the server
 * are imported and handed the card registry before anything is drawn.
 */
import { getJson, setToken, takeToken, Unauthorized } from './api.ts'
import { registerBuiltinCards } from './cards/builtin-cards.ts'
import * as dom from './dom.ts'
import { SessionView } from './session-view.ts'
import { renderSessions, type SessionPage, type SessionSummary } from './sessions-list.ts'
import { kindOfTool, registerCard } from './slots.ts'

/** What a viewer plugin's default export receives. */
export const viewerApi = { registerCard, kindOfTool, dom } as const

/** How often the sessions list is refreshed, in ms. */
const REFRESH_MS = 2000

const sidebar = dom.el('aside', { class: 'sidebar' })
const main = dom.el('main', { class: 'main' })
const status = dom.el('span', { class: 'status' })
let listPage = 1
let chosen: string | undefined
let current: SessionView | undefined
let lastPage: SessionPage | undefined

async function boot(): Promise<void> {
  takeToken()
  registerBuiltinCards()
  document.body.append(dom.el('header', { class: 'top' }, dom.el('h1', null, 'ptc view'), status), dom.el('div', { class: 'layout' }, sidebar, main))
  try {
    const config = await getJson<{ plugins: string[]; workspace: string }>('/api/config')
    status.textContent = config.workspace
    for (const url of config.plugins) {
      try {
        const plugin = (await import(url)) as { default?: (api: typeof viewerApi) => void }
        plugin.default?.(viewerApi)
      } catch (error) {
        console.error(`ptc view: plugin ${url} failed`, error)
      }
    }
  } catch (error) {
    if (error instanceof Unauthorized) return askToken()
    status.textContent = `error: ${(error as Error).message}`
  }
  chosen = decodeURIComponent(/^#session=(.+)$/.exec(location.hash)?.[1] ?? '') || undefined
  await refresh()
  setInterval(() => void refresh(), REFRESH_MS)
}

async function refresh(): Promise<void> {
  let page: SessionPage
  try {
    page = await getJson<SessionPage>(`/api/sessions?page=${listPage}`)
  } catch (error) {
    if (error instanceof Unauthorized) return askToken()
    status.textContent = `error: ${(error as Error).message}`
    return
  }
  lastPage = page
  listPage = page.page
  const newest = listPage === 1 ? page.sessions[0] : undefined
  const wanted = chosen ?? newest?.id ?? current?.element.getAttribute('data-session') ?? undefined
  if (wanted !== undefined && current?.element.getAttribute('data-session') !== wanted) {
    const info = page.sessions.find((session) => session.id === wanted) ?? { id: wanted, time: '' }
    open(info)
  }
  drawList()
}

function drawList(): void {
  if (!lastPage) return
  const selected = current?.element.getAttribute('data-session') ?? undefined
  sidebar.replaceChildren(
    renderSessions(lastPage, selected, select, (page) => {
      listPage = page
      void refresh()
    }),
  )
}

function select(session: SessionSummary): void {
  chosen = session.id
  history.replaceState(null, '', `#session=${encodeURIComponent(session.id)}`)
  open(session)
  drawList()
}

function open(info: { id: string; time: string; agent?: string; mcpSession?: string }): void {
  current?.dispose()
  current = new SessionView(info)
  main.replaceChildren(current.element)
  void current.start()
}

function askToken(): void {
  const input = dom.el('input', { type: 'password', 'aria-label': 'token' })
  const form = dom.el('form', { class: 'token-form' }, dom.el('p', null, 'This viewer needs the token it was started with (ptc view --token).'), input, dom.el('button', { type: 'submit' }, 'Open'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    setToken(input.value)
    location.reload()
  })
  main.replaceChildren(form)
}

void boot()
