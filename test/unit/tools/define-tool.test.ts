import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ToolDefinitionError } from '../../../src/errors/ptc-error.ts'
import { defineTool, isTool } from '../../../src/tools/define-tool.ts'
import type { ToolResult } from '../../../src/tools/types.ts'

const output = { schema: z.string(), render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] }

describe('defineTool (S1.1, S1.2, S2)', () => {
  it('S1.1 the compact form becomes one strict validator: required:true is required, the rest optional', () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: {
        path: { type: 'string', required: true, description: 'Absolute path' },
        limit: { type: 'number' },
        mode: { type: 'string', enum: ['text', 'bytes'] },
        lines: { type: 'array', items: { type: 'integer' } },
      },
      output,
      execute: (args) => args.path,
    })
    const ok = (value: unknown) => tool.parameters.safeParse(value).success
    expect(ok({ path: '/a' })).toBe(true)
    expect(ok({ path: '/a', limit: 3, mode: 'bytes', lines: [1, 2] })).toBe(true)
    expect(ok({})).toBe(false) // path is required
    expect(ok({ path: '/a', limit: '3' })).toBe(false)
    expect(ok({ path: '/a', mode: 'other' })).toBe(false) // enum
    expect(ok({ path: '/a', lines: [1.5] })).toBe(false) // integer items
    expect(ok({ path: '/a', lmit: 3 })).toBe(false) // a misspelt optional field is an error, not ignored
  })

  it('S1.1 the compact form carries descriptions into the model-facing JSON Schema', () => {
    const tool = defineTool({ name: 't', description: 'd', parameters: { path: { type: 'string', required: true, description: 'Absolute path' } }, output, execute: () => 'x' })
    const schema = z.toJSONSchema(tool.parameters) as unknown as { properties: { path: { description?: string } }; required: string[] }
    expect(schema.properties.path.description).toBe('Absolute path')
    expect(schema.required).toEqual(['path'])
  })

  it('S1.1 an unknown compact field type is a clear definition error naming the field', () => {
    expect(() =>
      defineTool({ name: 't', description: 'd', parameters: { when: { type: 'date' } } as never, output, execute: () => 'x' }),
    ).toThrow(/t\.when has unknown type "date"/)
  })

  it('S1.2 a definition without output.schema or output.render is rejected at definition time', () => {
    expect(() => defineTool({ name: 't', description: 'd', parameters: {}, output: { render: output.render } as never, execute: () => 'x' })).toThrow(ToolDefinitionError)
    expect(() => defineTool({ name: 't', description: 'd', parameters: {}, output: { schema: z.string() } as never, execute: () => 'x' })).toThrow(/output\.render/)
  })

  it('S2 required fields are checked: name, description, execute, parameters', () => {
    const base = { name: 't', description: 'd', parameters: {}, output, execute: () => 'x' }
    expect(() => defineTool({ ...base, name: '' })).toThrow(/name "" is invalid/)
    expect(() => defineTool({ ...base, name: 'has space' })).toThrow(ToolDefinitionError)
    expect(() => defineTool({ ...base, name: 'x'.repeat(129) })).toThrow(ToolDefinitionError)
    expect(() => defineTool({ ...base, description: '  ' })).toThrow(/description/)
    expect(() => defineTool({ ...base, execute: undefined as never })).toThrow(/execute must be a function/)
    expect(() => defineTool({ ...base, parameters: 'x' as never })).toThrow(/parameters must be/)
    expect(() => defineTool({ ...base, parameters: null as never })).toThrow(/parameters must be/)
  })

  it('S1.1 parameters written as a JSON Schema are refused saying so, while compact fields named type or properties stay fields', () => {
    const base = { name: 'forecast', description: 'd', output, execute: () => 'x' }
    const jsonSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    expect(() => defineTool({ ...base, parameters: jsonSchema as never })).toThrow(/^Tool "forecast": parameters takes a zod object schema or the compact form .*not a JSON Schema/)
    expect(() => defineTool({ ...base, parameters: { properties: { city: { type: 'string' } } } as never })).toThrow(/not a JSON Schema/)
    const fields = defineTool({ ...base, parameters: { type: { type: 'string' }, properties: { type: 'object' } } })
    expect(fields.parameters.safeParse({ type: 'a', properties: {} }).success).toBe(true)
  })

  it('S2 isConcurrencySafe must be a function: a boolean would silently leave the tool exclusive', () => {
    const base = { name: 't', description: 'd', parameters: {}, output, execute: () => 'x' }
    for (const isConcurrencySafe of [true, 'yes', 1]) {
      expect(() => defineTool({ ...base, isConcurrencySafe: isConcurrencySafe as never })).toThrow('Tool "t": isConcurrencySafe must be a function (args) => boolean, for example () => true.')
    }
    expect(defineTool({ ...base, isConcurrencySafe: () => true }).isConcurrencySafe?.({})).toBe(true)
  })

  it('S1.2 an output schema that requires a value no JSON can be (a Date, a BigInt) is refused at definition, naming where; one that only allows it is kept', () => {
    const base = { name: 't', description: 'd', parameters: {}, execute: () => ({}) }
    const tool = (schema: z.ZodType) => defineTool({ ...base, output: { schema, render: () => [] } })
    expect(() => tool(z.object({ at: z.date() }))).toThrow(/^Tool "t": output\.schema requires a Date at \$\.at, which no JSON value is, so every call would fail/)
    expect(() => tool(z.object({ n: z.object({ big: z.bigint() }) }))).toThrow(/requires a BigInt at \$\.n\.big/)
    expect(() => tool(z.string().pipe(z.map(z.string(), z.string()) as never))).toThrow(/requires a Map at \$,/)
    for (const schema of [z.object({ at: z.date().optional() }), z.object({ at: z.union([z.string(), z.date()]) }), z.array(z.date()), z.object({ at: z.string() })]) {
      expect(tool(schema).output.schema).toBe(schema)
    }
  })

  it('S1.2 an output schema of z.void(), z.undefined() or z.never() is refused at definition, pointing a tool that returns nothing to z.null()', () => {
    const base = { name: 't', description: 'd', parameters: {}, execute: () => null }
    const tool = (schema: z.ZodType) => defineTool({ ...base, output: { schema, render: () => [] } })
    expect(() => tool(z.void())).toThrow(/^Tool "t": output\.schema is z\.void\(\), so every call would fail.*declare z\.null\(\) and return null\.$/)
    expect(() => tool(z.undefined())).toThrow(/output\.schema is z\.undefined\(\)/)
    expect(() => tool(z.never())).toThrow(/output\.schema is z\.never\(\), which no value matches/)
    expect(tool(z.null()).output.schema).toBeDefined()
  })

  it('S1.1 parameters that refuse every object (z.string(), z.array(), an optional string, a union of scalars) are refused at definition; objects, records, unions with an object, wrappers, z.preprocess and what zod cannot tell are kept', () => {
    const base = { name: 't', description: 'd', output, execute: () => 'x' }
    expect(() => defineTool({ ...base, parameters: z.string() })).toThrow(/^Tool "t": parameters must describe an object .*but they take a string; put it in an object, e\.g\. z\.object\(\{ value: z\.string\(…\) \}\)\.$/)
    expect(() => defineTool({ ...base, parameters: z.array(z.string()) })).toThrow(/but they take an array/)
    expect(() => defineTool({ ...base, parameters: z.string().optional() })).toThrow(/but they take a string/)
    expect(() => defineTool({ ...base, parameters: z.union([z.number(), z.string()]) })).toThrow(/but they take a number/)
    const kept = [
      z.union([z.object({ a: z.string() }), z.string()]),
      z.preprocess((value) => value, z.object({ a: z.string() })),
      z.object({ a: z.string() }).nullable(),
      z.object({ a: z.string() }).nullish(),
      z.custom<{ a: string }>(() => true),
      z.json(),
      z.object({ a: z.string() }),
      z.record(z.string(), z.number()),
      z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
      z.object({ a: z.string() }).and(z.object({ b: z.number() })),
      z.object({ a: z.string() }).transform((args) => args.a),
      z.object({ a: z.string() }).optional(),
      z.lazy(() => z.object({ a: z.string() })),
      z.unknown(),
    ]
    for (const parameters of kept) expect(defineTool({ ...base, parameters }).parameters).toBe(parameters)
  })

  it("S1.1 parameters that may turn an object into what they take are kept: .catch() (an object becomes the fallback) and z.preprocess (its function may map an object to a string); wrappers that hand the object on unchanged are still refused", () => {
    const base = { name: 't', description: 'd', output, execute: () => 'x' }
    const caught = z.string().catch('x')
    const preprocessed = z.preprocess((value) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : value), z.string())
    // Both accept the object a model sends, so refusing them would refuse working tools.
    expect(caught.safeParse({ a: 1 })).toEqual({ success: true, data: 'x' })
    expect(preprocessed.safeParse({ a: 1 })).toEqual({ success: true, data: '{"a":1}' })
    for (const parameters of [caught, preprocessed, z.string().catch('x').optional(), z.union([z.number().catch(0), z.string()]), z.preprocess((value) => value, z.array(z.string()))]) {
      expect(defineTool({ ...base, parameters }).parameters).toBe(parameters)
    }
    // Each of these hands an object to a schema that refuses it: every call would fail.
    const refused: [z.ZodType, string][] = [
      [z.string().default('x'), 'string'],
      [z.string().prefault('x'), 'string'],
      [z.string().nullable().readonly(), 'string'],
      [z.string().transform((text) => text.length), 'string'],
      [z.string().pipe(z.string().min(1)), 'string'],
      [z.lazy(() => z.array(z.number())), 'array'],
      [z.string().and(z.object({ a: z.string() })), 'string'],
      [z.union([z.number(), z.literal('a')]), 'number'],
    ]
    for (const [parameters, type] of refused) expect(() => defineTool({ ...base, parameters }), type).toThrow(new RegExp(`but they take an? ${type};`))
  })

  it('S6.1 parameters that require a value no JSON argument can be (a Date, a BigInt, a Map) are refused at definition; z.coerce.date() and a transform from a string are kept', () => {
    const base = { name: 't', description: 'd', output, execute: () => 'x' }
    expect(() => defineTool({ ...base, parameters: z.object({ at: z.date() }) })).toThrow(/^Tool "t": parameters require a Date at \$\.at, which no JSON argument is, so every call would fail.*z\.coerce\.date\(\)/)
    expect(() => defineTool({ ...base, parameters: z.object({ n: z.bigint() }) })).toThrow(/parameters require a BigInt at \$\.n/)
    expect(() => defineTool({ ...base, parameters: z.object({ m: z.map(z.string(), z.string()) }) })).toThrow(/parameters require a Map at \$\.m.*Use a plain object \(z\.record\) instead\./)
    for (const parameters of [z.object({ at: z.coerce.date() }), z.object({ at: z.string().transform((text) => new Date(text)) }), z.object({ at: z.date().optional() })]) {
      expect(defineTool({ ...base, parameters }).parameters).toBe(parameters)
    }
  })

  it('S6.1 the refusal of a BigInt, Date, Map or Set parameter advises a JSON type that fits the type refused', () => {
    const base = { name: 't', description: 'd', output, execute: () => 'x' }
    const message = (parameters: z.ZodType) => {
      try {
        defineTool({ ...base, parameters })
      } catch (error) {
        return (error as Error).message
      }
      return 'accepted'
    }
    const bigint = message(z.object({ b: z.bigint() }))
    expect(bigint).toMatch(/^Tool "t": parameters require a BigInt at \$\.b, which no JSON argument is, so every call would fail: arguments arrive as plain JSON \(S6\.1\)\. Use a string of digits or a number instead\.$/)
    expect(bigint).not.toMatch(/date/i)
    expect(message(z.object({ at: z.date() }))).toMatch(/Date at \$\.at.*Use an ISO date string instead \(z\.coerce\.date\(\) turns one into a Date\)\.$/)
    expect(message(z.object({ s: z.set(z.string()) }))).toMatch(/Set at \$\.s.*Use an array instead\.$/)
    expect(message(z.object({ m: z.map(z.string(), z.string()) }))).toMatch(/Map at \$\.m.*Use a plain object \(z\.record\) instead\.$/)
  })

  it('S2 S6.1 a parameter or output key named __proto__ (compact form, zod shapes at any depth, output.schema) is refused at definition, naming the tool and the key path', () => {
    const base = { name: 't', description: 'd', output, execute: () => 'x' }
    const rename = /rename it/
    expect(() => defineTool({ ...base, parameters: { ['__proto__']: { type: 'string', required: true } } as never })).toThrow(/^Tool "t": parameters declare a key named __proto__ at \$\.__proto__,/)
    expect(() => defineTool({ ...base, parameters: { ['__proto__']: { type: 'string', required: true } } as never })).toThrow(rename)
    expect(() => defineTool({ ...base, parameters: z.object({ ['__proto__']: z.string().optional() }) })).toThrow(/^Tool "t": parameters declare a key named __proto__ at \$\.__proto__,.*rename it/)
    const nested = z.object({ list: z.array(z.object({ inner: z.object({ ['__proto__']: z.number() }).optional() })) })
    expect(() => defineTool({ ...base, parameters: nested })).toThrow(/parameters declare a key named __proto__ at \$\.list\[\]\.inner\.__proto__,/)
    const outputTool = (schema: z.ZodType) => defineTool({ ...base, parameters: {}, output: { schema, render: () => [] } })
    expect(() => outputTool(z.object({ ['__proto__']: z.string() }))).toThrow(/^Tool "t": output\.schema declares a key named __proto__ at \$\.__proto__,.*rename it/)
    expect(() => outputTool(z.union([z.null(), z.object({ a: z.object({ ['__proto__']: z.string() }) })]))).toThrow(/output\.schema declares a key named __proto__ at \$\.a\.__proto__,/)
    // A plain `__proto__:` in an object literal sets the prototype, so it declares no key, and `proto` is an ordinary name.
    expect(defineTool({ ...base, parameters: z.object({ proto: z.string(), __proto__: null }) }).name).toBe('t')
    type Node = { child?: Node }
    const recursive: z.ZodType<Node> = z.object({ get child() { return recursive.optional() } })
    expect(defineTool({ ...base, parameters: recursive }).name).toBe('t')
  })

  it('S2 timeoutMs must be a positive finite number of milliseconds', () => {
    const base = { name: 't', description: 'd', parameters: {}, output, execute: () => 'x' }
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100' as never]) {
      expect(() => defineTool({ ...base, timeoutMs })).toThrow(/timeoutMs/)
    }
    expect(defineTool({ ...base, timeoutMs: 250 }).timeoutMs).toBe(250)
  })

  it('S2 title and annotations are kept; a hint that is not a boolean, or an unknown hint, is a definition error', () => {
    const base = { name: 't', description: 'd', parameters: {}, output, execute: () => 'x' }
    const tool = defineTool({ ...base, title: 'A tool', annotations: { readOnlyHint: true, openWorldHint: false } })
    expect(tool.title).toBe('A tool')
    expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(() => defineTool({ ...base, annotations: { readOnlyHint: 'yes' as never } })).toThrow(/annotations .*booleans/)
    expect(() => defineTool({ ...base, annotations: { readonly: true } as never })).toThrow(/readOnlyHint, destructiveHint, idempotentHint, openWorldHint/)
    expect(() => defineTool({ ...base, title: '' })).toThrow(/title/)
  })

  it('S1.4 the defined tool is frozen and branded, so a plain look-alike object is not a tool', () => {
    const tool = defineTool({ name: 't', description: 'd', parameters: {}, output, execute: () => 'x' })
    expect(Object.isFrozen(tool)).toBe(true)
    expect(isTool(tool)).toBe(true)
    expect(isTool({ ...tool })).toBe(true) // spread copies the symbol brand: documented identity is the brand
    expect(isTool({ name: 't', execute: () => 'x' })).toBe(false)
    expect(isTool(null)).toBe(false)
  })
})

describe('presentCall / presentResult soft validation (S2, S11.5)', () => {
  const result = { isError: false, value: 'v' } as unknown as ToolResult
  const tool = defineTool({
    name: 'read_file',
    description: 'Read.',
    parameters: z.object({ path: z.string() }),
    output,
    execute: () => 'x',
    presentCall: (args) => ({ card: 'generic', phase: 'pending', title: args.path }) as never,
    presentResult: (args, r) => {
      if (args.path === 'boom') throw new Error('presenter crashed')
      if (args.path === 'not-a-card') return 42 as never
      return { card: 'generic', phase: 'completed', title: `${args.path}:${String(r.value)}` } as never
    },
  })

  it('S2 presentCall gets validated args and returns its card', () => {
    expect(tool.presentCall({ path: '/a' })).toMatchObject({ card: 'generic', title: '/a' })
  })

  it('S2 malformed or old-log args make the presenter return undefined instead of throwing', () => {
    for (const args of [{}, { path: 5 }, null, undefined, 'x', { get path() { throw new Error('hostile') } }]) {
      expect(tool.presentCall(args)).toBeUndefined()
      expect(tool.presentResult(args, result)).toBeUndefined()
    }
  })

  it('S2 a throwing presenter or a non-card answer falls back to undefined (generic card)', () => {
    expect(tool.presentResult({ path: 'boom' }, result)).toBeUndefined()
    expect(tool.presentResult({ path: 'not-a-card' }, result)).toBeUndefined()
    expect(tool.presentResult({ path: '/a' }, result)).toMatchObject({ title: '/a:v' })
  })

  it('S2 a tool without presenters answers undefined', () => {
    const plain = defineTool({ name: 'p', description: 'd', parameters: {}, output, execute: () => 'x' })
    expect(plain.presentCall({})).toBeUndefined()
    expect(plain.presentResult({}, result)).toBeUndefined()
  })
})
