/**
 * JSON Schema validation of imported MCP tools (SPEC S1.1: the registry's `parameters` validate,
 * tool bodies never do). The registry needs a zod schema, and an MCP server gives JSON Schema, so
 * the schema is compiled once with ajv (the validator the SDK itself uses) and wrapped as
 * `z.any().superRefine(check)`: zod keeps the value as is, ajv decides.
 */
import { createRequire } from 'node:module'
import type { Ajv } from 'ajv'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import { z } from 'zod'

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params?: Record<string, unknown>
  /** With `verbose: true`: the value and the schema object the failing keyword belongs to. */
  data?: unknown
  parentSchema?: unknown
}
type Validate = ((value: unknown) => boolean) & { errors?: AjvError[] | null }

// Formats are not validated (the server does that); unknown keywords are tolerated (strict: false).
// `verbose` adds each error's data and schema, so an unknown key can be named (see `unknownKeys`).
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, verbose: true }
let validators: { draft7: Ajv; draft2020: Ajv2020 } | undefined

/** ajv is loaded with the first schema (issue 12): a host that compiles none never loads it. */
function ajvValidators(): { draft7: Ajv; draft2020: Ajv2020 } {
  if (validators === undefined) {
    const require = createRequire(import.meta.url)
    const { Ajv: Draft7 } = require('ajv') as typeof import('ajv')
    const { Ajv2020: Draft2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')
    validators = { draft7: new Draft7(AJV_OPTIONS), draft2020: new Draft2020(AJV_OPTIONS) }
  }
  return validators
}

/**
 * Compile `schema` into a zod schema that accepts exactly what ajv accepts. Draft 2020-12 and
 * 2019-09 schemas (by `$schema`) use Ajv2020, everything else draft-07. A schema ajv cannot
 * compile degrades to "any JSON object" for arguments (the server still validates its own input)
 * and `onUncompilable` is told why.
 */
export function jsonSchemaCheck(schema: Record<string, unknown>, options: { label: string; onUncompilable?: (message: string) => void }): z.ZodType<any> {
  let validate: Validate
  try {
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
    const { draft7, draft2020 } = ajvValidators()
    validate = (/20(19|20)-/.test(dialect) ? draft2020 : draft7).compile(schema) as Validate
  } catch (error) {
    options.onUncompilable?.(`${options.label}: the JSON Schema does not compile (${(error as Error).message}); values are only checked to be JSON objects.`)
    return z.record(z.string(), z.any())
  }
  return z.any().superRefine((value, check) => {
    if (validate(value)) return
    const errors = validate.errors ?? []
    for (const error of errors) {
      check.addIssue({ code: 'custom', message: issueMessage(error), path: pathOf(error.instancePath) })
    }
    for (const { instancePath, message } of unknownKeys(errors)) check.addIssue({ code: 'custom', message, path: pathOf(instancePath) })
    if (!validate.errors?.length) check.addIssue({ code: 'custom', message: `does not match the ${options.label} JSON Schema` })
  })
}

/** ajv's message, with the offending key named where ajv leaves it out. */
function issueMessage(error: AjvError): string {
  const extra = error.params?.additionalProperty
  if (error.keyword === 'additionalProperties' && typeof extra === 'string') return `unknown key "${extra}"`
  return error.message ?? 'is invalid'
}

/**
 * A required property is missing and the object has keys its schema does not declare (and does
 * not forbid, or that error would name them already): most often a misspelt name, `file` for
 * `path`. ajv reports only the missing one; this names the unknown keys and the known ones, once
 * per object. Needs ajv's `verbose` errors (the object and its schema).
 */
function unknownKeys(errors: readonly AjvError[]): { instancePath: string; message: string }[] {
  const found = new Map<string, string>()
  for (const error of errors) {
    if (error.keyword !== 'required' || found.has(error.instancePath)) continue
    const { data, parentSchema } = error
    if (typeof data !== 'object' || data === null || Array.isArray(data)) continue
    const properties = (parentSchema as { properties?: unknown } | undefined)?.properties
    if (typeof properties !== 'object' || properties === null) continue
    const known = Object.keys(properties)
    const unknown = Object.keys(data).filter((key) => !Object.hasOwn(properties, key))
    if (unknown.length === 0) continue
    const list = unknown.slice(0, 10).map((key) => `"${key.slice(0, 100)}"`).join(', ')
    found.set(error.instancePath, `unknown key${unknown.length === 1 ? '' : 's'} ${list}; the known keys are ${known.slice(0, 30).join(', ') || '(none)'}`)
  }
  return [...found].map(([instancePath, message]) => ({ instancePath, message }))
}

function pathOf(instancePath: string): (string | number)[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part))
}
