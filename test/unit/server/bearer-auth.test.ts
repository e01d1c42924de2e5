import { describe, expect, it } from 'vitest'
import { bearerTokenMatches, isLoopbackHost, isLoopbackHostHeader } from '../../../src/server/bearer-auth.ts'
import { checkExposure } from '../../../src/server/http-server.ts'
import { ServeError } from '../../../src/server/serve-errors.ts'

describe('HTTP exposure rules of ptc serve (S8.2: strict by default)', () => {
  it('loopback means localhost, 127.0.0.0/8 and ::1', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false)
  })

  it('a non-loopback bind without a token is refused before listening, with what to do', () => {
    expect(() => checkExposure({ host: '0.0.0.0' })).toThrow(ServeError)
    expect(() => checkExposure({ host: '0.0.0.0', token: '' })).toThrow(/needs a bearer token.*--token.*PTC_SERVE_TOKEN/)
    expect(checkExposure({ host: '0.0.0.0', token: 't' })).toEqual({ host: '0.0.0.0', port: 8765, token: 't' })
    expect(checkExposure({})).toEqual({ host: '127.0.0.1', port: 8765, token: undefined })
    expect(() => checkExposure({ port: 70_000 })).toThrow(/--port/)
  })

  it('the bearer token must match exactly', () => {
    expect(bearerTokenMatches('Bearer secret', 'secret')).toBe(true)
    expect(bearerTokenMatches('bearer  secret', 'secret')).toBe(true)
    expect(bearerTokenMatches('Bearer secreT', 'secret')).toBe(false)
    expect(bearerTokenMatches('Bearer secret2', 'secret')).toBe(false)
    expect(bearerTokenMatches('secret', 'secret')).toBe(false)
    expect(bearerTokenMatches(undefined, 'secret')).toBe(false)
  })

  it('on a loopback bind only loopback Host headers are served (DNS rebinding)', () => {
    expect(isLoopbackHostHeader('127.0.0.1:8765')).toBe(true)
    expect(isLoopbackHostHeader('localhost:1')).toBe(true)
    expect(isLoopbackHostHeader('[::1]:8765')).toBe(true)
    expect(isLoopbackHostHeader('evil.example:8765')).toBe(false)
    expect(isLoopbackHostHeader(undefined)).toBe(false)
  })
})
