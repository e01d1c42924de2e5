/**
 * Bounds and formats of an argument as doc-comment notes (S9.1): what the model must respect to
 * make a call that passes validation, which TypeScript's types cannot say.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { constraintNotes, MAX_PATTERN_NOTE_CHARS } from '../../typegen/constraint-notes.ts'
import { generateDeclarations, type TypegenTool } from '../../typegen/index.ts'

describe('constraint notes (S9.1)', () => {
  it('S9.1 each bound and format an argument states is a note named after its JSON Schema keyword; integer alone and safe-integer bounds are none', () => {
    expect(constraintNotes({ type: 'integer', minimum: 1, maximum: 5 })).toEqual(['@minimum 1', '@maximum 5'])
    expect(constraintNotes({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.5 })).toEqual(['@exclusiveMinimum 0', '@exclusiveMaximum 1', '@multipleOf 0.5'])
    expect(constraintNotes({ type: 'string', minLength: 1, maxLength: 20, pattern: '^[a-z]+$' })).toEqual(['@minLength 1', '@maxLength 20', '@pattern ^[a-z]+$'])
    expect(constraintNotes({ type: 'string', format: 'email', pattern: '^x$' })).toEqual(['@format email']) // the format says it; zod's regex would not
    expect(constraintNotes({ type: 'string', pattern: 'x'.repeat(MAX_PATTERN_NOTE_CHARS + 1) })).toEqual([])
    expect(constraintNotes({ type: 'array', minItems: 1, maxItems: 3, uniqueItems: true })).toEqual(['@minItems 1', '@maxItems 3', '@uniqueItems'])
    expect(constraintNotes({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2, maxItems: 2 })).toEqual([])
    expect(constraintNotes({ type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })).toEqual([])
    // .nullable(): the bounds sit in the one arm that is not null
    expect(constraintNotes({ anyOf: [{ type: 'number', minimum: 3 }, { type: 'null' }] })).toEqual(['@minimum 3'])
    expect(constraintNotes({ anyOf: [{ type: 'number', minimum: 3 }, { type: 'string', maxLength: 2 }] })).toEqual([])
    expect(constraintNotes({ maxLength: 5, anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] })).toEqual(['@format email', '@maxLength 5'])
  })

  it('S9.1 a description with U+2028 or U+2029 cannot end its // doc line and declare more: they are line breaks, and the doc moves above', async () => {
    const tool: TypegenTool = { name: 'sneaky', description: 'd', parameters: z.object({ a: z.string().describe('Fine.\u2028alsoSneaky: number') }), output: z.null() }
    const text = await generateDeclarations([tool], { embedded: true })
    expect(text).not.toMatch(/[\u2028\u2029]/)
    expect(text).toContain('/**\n     * Fine.\n     * alsoSneaky: number\n     */\n    a: string')
  })

  it('S9.1 a z.coerce.date() argument is an ISO date string (what it takes), not unknown; a plain z.date() stays unknown', async () => {
    const tool: TypegenTool = { name: 'when', description: 'd', parameters: z.object({ at: z.coerce.date(), plain: z.date().optional() }), output: z.null() }
    const text = await generateDeclarations([tool], { embedded: true })
    expect(text).toMatch(/at: string \/\/ @format date-time/)
    expect(text).toMatch(/plain\?: unknown/)
  })

  it('S9.1 the declarations note the bounds of arguments (after the description, before @default) and not of outputs', async () => {
    const tool: TypegenTool = {
      name: 'add_items',
      description: 'Add items.',
      parameters: z.object({
        items: z.array(z.string()).min(1).describe('Items to add.'),
        times: z.number().int().min(1).max(5).default(1).describe('How often.'),
        when: z.string().datetime(),
      }),
      output: z.object({ added: z.number().int().min(0), at: z.string().datetime() }),
    }
    const text = await generateDeclarations([tool], { embedded: true })
    expect(text).toContain('items: string[] // Items to add. @minItems 1')
    expect(text).toContain('times?: number // How often. @minimum 1 @maximum 5 @default 1')
    expect(text).toContain('when: string // @format date-time')
    expect(text).toContain('Promise<{ added: number; at: string }>')
  })
})
