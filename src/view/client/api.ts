/**
 * The app's side of the viewer API (SPEC S11.6): JSON pages (`/api/sessions`, `page`) and the
 * live `follow` stream, read with `fetch` so the bearer token can travel in a header (EventSource
 * cannot send one). The token comes from the page's `#token=…` fragment (never sent to the
 * server in a URL) and is kept in sessionStorage for reloads.
 */

const TOKEN_KEY = 'ptc-view-token'

/** The server refused the token (or none was given). */
export class Unauthorized extends Error {}

/** Take `#token=…` out of the address (into sessionStorage); returns the token to use. */
export function takeToken(): string | null {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash)
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]!))
    history.replaceState(null, '', location.pathname + location.search)
  }
  return sessionStorage.getItem(TOKEN_KEY)
}

/** Remember a token typed by the user. */
export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token)
}

function headers(): HeadersInit {
  const token = sessionStorage.getItem(TOKEN_KEY)
  return token ? { Authorization: `Bearer ${token}` } : {}
}

/**
 * GET a JSON endpoint.
 * @throws Unauthorized on 401; Error with the server's message otherwise.
 */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: headers(), cache: 'no-store' })
  if (response.status === 401) throw new Unauthorized('unauthorized')
  const body = (await response.json()) as T & { error?: string }
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`)
  return body
}

/** The path of a session's endpoint (`page` or `follow`). */
export function sessionPath(id: string, what: 'page' | 'follow', offset: number): string {
  return `/api/sessions/${encodeURIComponent(id)}/${what}?offset=${offset}`
}

/** A page of records. */
export interface RecordPage {
  records: unknown[]
  next: number
}

/**
 * Follow a session from byte `offset` until `signal` aborts, calling `onPage` for every batch of
 * records; reconnects (from the last offset) one second after the stream drops.
 * `onState` hears `live` / `reconnecting`.
 */
export async function follow(id: string, offset: number, onPage: (page: RecordPage) => void, onState: (state: 'live' | 'reconnecting') => void, signal: AbortSignal): Promise<void> {
  let next = offset
  while (!signal.aborted) {
    try {
      const response = await fetch(sessionPath(id, 'follow', next), { headers: headers(), cache: 'no-store', signal })
      if (response.status === 401) throw new Unauthorized('unauthorized')
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`)
      onState('live')
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = parseEvent(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
          if (event.type === 'records') {
            const page = JSON.parse(event.data) as RecordPage
            next = page.next
            onPage(page)
          }
        }
      }
    } catch (error) {
      if (signal.aborted || error instanceof Unauthorized) return
    }
    if (signal.aborted) return
    onState('reconnecting')
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

function parseEvent(block: string): { type: string; data: string } {
  let type = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
  }
  return { type, data: data.join('\n') }
}
