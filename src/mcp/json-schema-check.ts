/**
 * JSON Schema validation of imported MCP tools (SPEC S1.1: the registry's `parameters` validate,
 * tool bodies never do). The registry needs a zod schema, and an MCP server gives JSON Schema, so
 * the schema is compiled once with ajv (the validator the SDK itself uses) and wrapped as
 * `z.any().superRefine(check)`: zod keeps the value as is, ajv decides.
 */
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { z } from 'zod'

type Validate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null }

// Formats are not validated (the server does that); unknown keywords are tolerated (strict: false).
const draft7 = new Ajv({ strict: false, allErrors: true, validateFormats: false })
const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })

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
    validate = (/20(19|20)-/.test(dialect) ? draft2020 : draft7).compile(schema) as Validate
  } catch (error) {
    options.onUncompilable?.(`${options.label}: the JSON Schema does not compile (${(error as Error).message}); values are only checked to be JSON objects.`)
    return z.record(z.string(), z.any())
  }
  return z.any().superRefine((value, check) => {
    if (validate(value)) return
    for (const error of validate.errors ?? []) {
      check.addIssue({ code: 'custom', message: error.message ?? 'is invalid', path: pathOf(error.instancePath) })
    }
    if (!validate.errors?.length) check.addIssue({ code: 'custom', message: `does not match the ${options.label} JSON Schema` })
  })
}

function pathOf(instancePath: string): (string | number)[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part))
}
