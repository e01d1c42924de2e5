/**
 * Network exposure rules of `ptc serve --http`: which binds count as loopback, the bearer-token
 * check (constant time), and the Host-header check that keeps a loopback server from answering a
 * DNS-rebinding page.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'

/** True for `localhost`, `127.0.0.0/8`, `::1` (with or without brackets) and `::ffff:127.x`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (bare === 'localhost') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare)
  return false
}

/**
 * True when the `Authorization` header carries `Bearer <token>`. Both sides are hashed to equal
 * lengths before `timingSafeEqual`, so neither the token's content nor its length leaks by timing.
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(.+)$/i.exec(header?.trim() ?? '')
  const given = createHash('sha256').update(match?.[1] ?? '').digest()
  const expected = createHash('sha256').update(token).digest()
  return timingSafeEqual(given, expected) && match !== null
}

/**
 * True when an `Origin` header names a loopback origin (`http://127.0.0.1:3000`, `http://localhost`,
 * `http://[::1]:8080`). `null` (opaque origins: sandboxed frames, `file:`) and anything unparsable
 * are not loopback.
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
  } catch {
    return false
  }
}

/**
 * True when the `Host` header names a loopback host (any port). A browser page on an attacker's
 * domain that rebinds to 127.0.0.1 still sends its own domain as `Host`, so this refuses it.
 */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (!header) return false
  const host = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.replace(/:\d+$/, '')
  return isLoopbackHost(host)
}
