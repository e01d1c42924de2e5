import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { defineTool, type Tool } from '../../src/tools/define-tool.ts'
import type { ContentBlock, ToolExecution } from '../../src/tools/types.ts'

const text = (value: string): ContentBlock[] => [{ type: 'text', text: value }]

describe('defineTool type inference (S1.1, S1.2)', () => {
  it('S1.1 args are inferred from a zod object', () => {
    defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: z.object({ path: z.string(), limit: z.number().int().optional(), mode: z.enum(['text', 'bytes']).default('text') }),
      output: { schema: z.string(), render: (_args, value) => text(value) },
      execute: (args, exec) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; limit?: number | undefined; mode: 'text' | 'bytes' }>()
        expectTypeOf(exec).toEqualTypeOf<ToolExecution<{ path: string; limit?: number | undefined; mode: 'text' | 'bytes' }>>()
        expectTypeOf(exec.signal).toEqualTypeOf<AbortSignal>()
        expectTypeOf(exec.token).toEqualTypeOf<symbol>()
        return args.path
      },
    })
  })

  it('S1.1 args are inferred from the compact form: required:true is required, the rest optional', () => {
    defineTool({
      name: 'search',
      description: 'Search.',
      parameters: {
        query: { type: 'string', required: true, description: 'What to find' },
        limit: { type: 'number' },
        exact: { type: 'boolean', required: false },
        kind: { type: 'string', enum: ['file', 'symbol'], required: true },
        paths: { type: 'array', items: { type: 'string' } },
        ids: { type: 'array', items: { type: 'integer' }, required: true },
        anything: { type: 'array' },
        filter: { type: 'object' },
      },
      output: { schema: z.array(z.string()), render: (_args, value) => text(value.join('\n')) },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          query: string
          kind: 'file' | 'symbol'
          ids: number[]
          limit?: number
          exact?: boolean
          paths?: string[]
          anything?: unknown[]
          filter?: Record<string, unknown>
        }>()
        // @ts-expect-error limit is optional, so it may be undefined
        const limit: number = args.limit
        void limit
        return [args.query]
      },
    })
  })

  it('S1.1 the defined tool carries its args and value types', () => {
    const tool = defineTool({
      name: 't',
      description: 'd',
      parameters: { path: { type: 'string', required: true } },
      output: { schema: z.object({ size: z.number() }), render: (_args, value) => text(String(value.size)) },
      execute: () => ({ size: 1 }),
    })
    expectTypeOf(tool).toEqualTypeOf<Tool<{ path: string }, { size: number }>>()
    expectTypeOf(tool.parameters).toEqualTypeOf<z.ZodType<{ path: string }>>()
  })

  it('S1.2 the execute return must match output.schema (sync or async)', () => {
    defineTool({
      name: 'ok_async',
      description: 'd',
      parameters: {},
      output: { schema: z.object({ id: z.string() }), render: (_args, value) => text(value.id) },
      execute: async () => ({ id: 'x' }),
    })
    defineTool({
      name: 'wrong_sync',
      description: 'd',
      parameters: {},
      output: { schema: z.object({ id: z.string() }), render: (_args, value) => text(value.id) },
      // @ts-expect-error id must be a string
      execute: () => ({ id: 1 }),
    })
    defineTool({
      name: 'wrong_async',
      description: 'd',
      parameters: {},
      output: { schema: z.number(), render: (_args, value) => text(String(value)) },
      // @ts-expect-error a string is not the declared number
      execute: async () => 'five',
    })
    defineTool({
      name: 'content_blocks',
      description: 'd',
      parameters: {},
      output: { schema: z.object({ path: z.string() }), render: (_args, value) => text(value.path) },
      // @ts-expect-error execute returns the canonical value, never content blocks
      execute: () => [{ type: 'text', text: 'done' }],
    })
  })

  it('S1.2 render gets the args and the canonical value type; it must return content blocks', () => {
    defineTool({
      name: 'r',
      description: 'd',
      parameters: { path: { type: 'string', required: true } },
      output: {
        schema: z.object({ lines: z.array(z.string()), total: z.number() }),
        render: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ path: string }>()
          expectTypeOf(value).toEqualTypeOf<{ lines: string[]; total: number }>()
          return text(`${args.path}: ${value.total}`)
        },
        presentationMeta: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ path: string }>()
          expectTypeOf(value).toEqualTypeOf<{ lines: string[]; total: number }>()
          return { total: value.total }
        },
      },
      execute: () => ({ lines: [], total: 0 }),
    })
    defineTool({
      name: 'bad_render',
      description: 'd',
      parameters: {},
      output: {
        schema: z.string(),
        // @ts-expect-error render returns content blocks, not a string
        render: (_args, value) => value,
      },
      execute: () => 'x',
    })
  })

  it('S2.2 isConcurrencySafe gets the typed args and must return a boolean', () => {
    defineTool({
      name: 'fs',
      description: 'd',
      parameters: { op: { type: 'string', enum: ['read', 'write'], required: true } },
      output: { schema: z.null(), render: () => [] },
      execute: () => null,
      isConcurrencySafe: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ op: 'read' | 'write' }>()
        return args.op === 'read'
      },
    })
    defineTool({
      name: 'fs2',
      description: 'd',
      parameters: z.object({ op: z.string() }),
      output: { schema: z.null(), render: () => [] },
      execute: () => null,
      // @ts-expect-error a promise is not a synchronous boolean
      isConcurrencySafe: async () => true,
    })
  })

  it('S2 the other optional fields are typed from the same args and value', () => {
    defineTool({
      name: 'full',
      description: 'd',
      parameters: z.object({ path: z.string() }),
      output: { schema: z.object({ bytes: z.number() }), render: (_args, value) => text(String(value.bytes)) },
      execute: () => ({ bytes: 3 }),
      projectContent: ({ args, value, content }) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string }>()
        expectTypeOf(value).toEqualTypeOf<{ bytes: number }>()
        expectTypeOf(content).toEqualTypeOf<readonly ContentBlock[]>()
        return [...content]
      },
      finalizeContent: ({ args, result }) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string } | undefined>()
        return [...result.content]
      },
      presentCall: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string }>()
        return { card: 'generic', phase: 'pending', title: args.path }
      },
      timeoutMs: 1000,
      deferLoading: true,
    })
  })

  it('S5.2 the execution record is read-only where the spec says so', () => {
    defineTool({
      name: 'ro',
      description: 'd',
      parameters: { path: { type: 'string', required: true } },
      output: { schema: z.null(), render: () => [] },
      execute: (args, exec) => {
        // args are deep-frozen at run time (S6.1); their static type is the plain inferred one
        expectTypeOf(args).toEqualTypeOf<{ path: string }>()
        // @ts-expect-error the execution's args are read-only too
        exec.arguments.path = 'x'
        // @ts-expect-error callId is immutable
        exec.callId = 'x'
        exec.signal = new AbortController().signal // a wrapper may replace the signal
        return null
      },
    })
  })
})
