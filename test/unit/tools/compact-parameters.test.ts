import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ToolDefinitionError } from '../../../src/errors/ptc-error.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'

const output = { schema: z.string(), render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] }

/** Define a tool named `lookup` whose compact parameters are `parameters`, bypassing the types as a JavaScript author would. */
const define = (parameters: unknown) => defineTool({ name: 'lookup', description: 'd', parameters: parameters as never, output, execute: () => 'x' })

describe('compact parameter form: definitions no call could use are refused (S1.1, S2)', () => {
  it('S2.1 an enum that is not a non-empty array of strings is refused, naming the tool and the field', () => {
    for (const bad of [[1, 2], [], 'a', ['a', 2]]) {
      expect(() => define({ a: { type: 'string', enum: bad } })).toThrow(ToolDefinitionError)
      expect(() => define({ a: { type: 'string', enum: bad } })).toThrow(/lookup\.a .*enum must be a non-empty array of strings/)
    }
    expect(() => define({ list: { type: 'array', items: { type: 'string', enum: [] } } })).toThrow(/lookup\.list\[\] .*enum must be a non-empty array of strings/)
  })

  it('S2.1 an enum on a field that is not a string is refused: the compact form has string enums only', () => {
    expect(() => define({ n: { type: 'number', enum: [1, 2] } })).toThrow(/lookup\.n .*enum.*not supported.*type "number".*zod schema/)
  })

  it('S2.1 a zod schema as one compact field is refused with how to use zod: the whole parameters as one z.object', () => {
    for (const schema of [z.string(), z.number().min(1), z.object({ x: z.string() })]) {
      expect(() => define({ name: { type: 'string' }, a: schema })).toThrow(/lookup\.a is a zod schema, but the compact form takes plain fields .*pass the whole parameters as one z\.object/)
    }
  })

  it('S2.1 required must be a boolean, not a truthy string', () => {
    expect(() => define({ a: { type: 'string', required: 'yes' } })).toThrow(/lookup\.a .*required must be true or false/)
  })

  it('S2.1 a key the compact form does not support (minimum) is refused, listing the supported keys and advising a zod schema', () => {
    const thrown = (() => {
      try {
        define({ a: { type: 'number', minimum: 3 } })
      } catch (error) {
        return error as Error
      }
      return undefined
    })()
    expect(thrown).toBeInstanceOf(ToolDefinitionError)
    expect(thrown?.message).toMatch(/lookup\.a .*"minimum".*not supported/)
    expect(thrown?.message).toMatch(/type, required, description/)
    expect(thrown?.message).toMatch(/use a zod schema/)
  })

  it('S2.1 a field that is not an object, or a non-string description, is a definition error rather than a TypeError', () => {
    expect(() => define({ a: 'string' })).toThrow(/lookup\.a must be an object like \{ type: 'string' \}/)
    expect(() => define({ a: null })).toThrow(ToolDefinitionError)
    expect(() => define({ a: { type: 'string', description: 3 } })).toThrow(/lookup\.a .*description must be a string/)
  })

  it('S2.1 the supported compact keys still define a working tool', () => {
    const tool = define({
      path: { type: 'string', required: true, description: 'p' },
      mode: { type: 'string', enum: ['a', 'b'], required: false },
      list: { type: 'array', items: { type: 'integer' } },
    })
    expect(tool.parameters.safeParse({ path: '/x', mode: 'a', list: [1] }).success).toBe(true)
    expect(tool.parameters.safeParse({ path: '/x', mode: 'c' }).success).toBe(false)
  })
})
