/**
 * requestIdOf: the id of a JSON-RPC request from the start and end of a line too long to read
 * whole, so its error answer carries the request's id (JSON-RPC 2.0 §5; MCP over stdio), and
 * nothing for an answer, which is never answered.
 */
import { describe, expect, it } from 'vitest'
import { requestIdOf } from '../../../src/mcp/request-id-of-line.ts'

const cut = (line: string) => [line.slice(0, 60), line.slice(-60)] as const

describe('requestIdOf (MCP stdio, JSON-RPC 2.0 §5)', () => {
  it('S9.4 reads the id of a request whether it comes first (Python SDK) or last (TypeScript SDK), as a number or a string', () => {
    const huge = 'a'.repeat(500)
    expect(requestIdOf(...cut(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"code":"${huge}"}}`))).toBe(77)
    expect(requestIdOf(...cut(`{"method":"tools/call","params":{"code":"${huge}"},"jsonrpc":"2.0","id":5}`))).toBe(5)
    expect(requestIdOf(...cut(`{"method":"tools/call","params":{"code":"${huge}"},"jsonrpc":"2.0","id":"req-\\"1\\""}\r`))).toBe('req-"1"')
    expect(requestIdOf(' { "method" : "x" , "id" : -3 , "params": {', '')).toBe(-3)
  })

  it('S9.4 gives null for an answer (never answered), a line whose id is not whole, a nested id only, or no object', () => {
    const huge = 'b'.repeat(500)
    expect(requestIdOf(...cut(`{"jsonrpc":"2.0","id":3,"result":{"text":"${huge}"}}`))).toBeNull()
    expect(requestIdOf(...cut(`{"result":{"text":"${huge}"},"jsonrpc":"2.0","id":3}`))).toBeNull()
    expect(requestIdOf('{"method":"x","id":12', '')).toBeNull() // 12 may be the start of 123
    expect(requestIdOf(...cut(`{"method":"x","params":{"id":4,"code":"${huge}"}}`))).toBeNull()
    expect(requestIdOf('{"method":"x","id":null,"params":{', '')).toBeNull()
    expect(requestIdOf('[{"id":1,"method":"x"}]', '[{"id":1,"method":"x"}]')).toBeNull()
    expect(requestIdOf('not json', 'not json')).toBeNull()
    expect(requestIdOf('', '')).toBeNull()
  })
})
