/**
 * idFromHead: the id of a JSON-RPC request from the start of a line too long to read whole, so
 * its error answer carries the request's id (JSON-RPC 2.0 §5; MCP over stdio).
 */
import { describe, expect, it } from 'vitest'
import { idFromHead } from '../../../src/mcp/id-from-head.ts'

describe('idFromHead (MCP stdio, JSON-RPC 2.0 §5)', () => {
  it('S9.4 reads a number or string id wherever it sits among the top-level members before the cut', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"code":"aaaa')).toBe(77)
    expect(idFromHead(' { "jsonrpc" : "2.0" , "id" : "req-\\"1\\"" , "params": {')).toBe('req-"1"')
    expect(idFromHead('{"method":"x","params":{"id":5,"a":[1,{"b":"}"}]},"id":-3,"more":"')).toBe(-3)
  })

  it('S9.4 gives null when the id is not whole in the start, is nested only, or the text is not an object', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":12')).toBeNull() // 12 may be the start of 123
    expect(idFromHead('{"jsonrpc":"2.0","method":"x","params":{"id":4,"code":"aaa')).toBeNull()
    expect(idFromHead('{"jsonrpc":"2.0","id":"ab')).toBeNull()
    expect(idFromHead('[{"id":1}]')).toBeNull()
    expect(idFromHead('{"id":null,"method":"x"}')).toBeNull()
    expect(idFromHead('{"id":{"a":1},"method":"x"}')).toBeNull()
    expect(idFromHead('not json')).toBeNull()
    expect(idFromHead('')).toBeNull()
  })
})
