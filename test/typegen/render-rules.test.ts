/**
 * The rendering rules of the declarations (S9.1), one test a rule, each comparing the whole
 * output. Most use the embedded form (what `ptc serve` puts in the `run_code` description: one
 * `declare const tools` with a method a tool, one-line docs at the end of their line), which has
 * no header to repeat; the last tests show the same rules in the file form.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateDeclarations, type TypegenTool } from '../../typegen/index.ts'

/** A tool as MCP imports it: JSON Schemas given as they are. */
function mcpTool(name: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>, description = `The ${name} tool.`): TypegenTool {
  return { name, description, parameters: z.object({}), output: z.unknown(), parametersJsonSchema: inputSchema, outputJsonSchema: outputSchema ?? { type: 'string' } }
}

const embedded = (tools: TypegenTool[]) => generateDeclarations(tools, { embedded: true })

describe('declaration rendering rules (S9.1)', () => {
  it('S9.1 a small object without doc comments is one line; a long one or one with a doc gets a line a member', async () => {
    const small = { type: 'object', properties: { path: { type: 'string' }, head: { type: 'integer' } }, required: ['path'] }
    const long = { type: 'object', properties: Object.fromEntries(['sourcePath', 'destinationPath', 'temporaryPath', 'backupPath', 'archivePath'].map((key) => [key, { type: 'string' }])) }
    const documented = { type: 'object', properties: { path: { type: 'string', description: 'Where.' } } }
    expect(await embedded([mcpTool('a', small), mcpTool('b', long), mcpTool('c', documented)])).toBe(`declare const tools: {
  /** The a tool. */
  a(args: { path: string; head?: number }): Promise<string>
  /** The b tool. */
  b(args: {
    sourcePath?: string
    destinationPath?: string
    temporaryPath?: string
    backupPath?: string
    archivePath?: string
  }): Promise<string>
  /** The c tool. */
  c(args: {
    path?: string // Where.
  }): Promise<string>
}
`)
  })

  it('S9.1 a JSON Schema default shows as @default on an optional key (after its description), not on a required one', async () => {
    const schema = {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['list', 'show'], default: 'list', description: 'What to do.' },
        limit: { type: 'integer', default: 10 },
        options: { type: 'object', properties: { deep: { type: 'boolean' } }, default: { deep: false } },
        glob: { type: 'string', default: '**/*.ts */' },
        id: { type: 'string', default: 'x' },
      },
      required: ['id'],
    }
    expect(await embedded([mcpTool('find', schema)])).toBe(`declare const tools: {
  /** The find tool. */
  find(args: {
    mode?: "list" | "show" // What to do. @default "list"
    limit?: number // @default 10
    options?: { deep?: boolean } // @default {"deep":false}
    glob?: string // @default "**\\/*.ts *\\/"
    id: string
  }): Promise<string>
}
`)
  })

  it('S9.1 parentheses only where TypeScript needs them: arrays of unions and unions inside intersections', async () => {
    const schema = {
      type: 'object',
      properties: {
        mode: { enum: ['a', 'b'] },
        modes: { type: 'array', items: { enum: ['a', 'b'] } },
        name: { type: 'string', nullable: true },
        both: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { const: 1 }] },
      },
      required: ['mode', 'modes', 'name', 'both'],
    }
    expect(await embedded([mcpTool('pick', schema)])).toBe(`declare const tools: {
  /** The pick tool. */
  pick(args: { mode: "a" | "b"; modes: ("a" | "b")[]; name: string | null; both: (string | number) & 1 }): Promise<string>
}
`)
  })

  it('S9.1 a union arm keeps its own description, as a comment before the arm', async () => {
    const commit = { type: 'string', description: 'Commit reference: full/short hash, or a relative ref (HEAD~1).' }
    const schema = {
      type: 'object',
      properties: {
        merged: { description: 'Only branches merged into HEAD (true) or into this commit.', anyOf: [{ type: 'boolean' }, commit] },
        target: { anyOf: [{ type: 'string', description: 'Branch name.' }, commit] },
      },
    }
    expect(await embedded([mcpTool('branch', schema)])).toBe(`declare const tools: {
  /** The branch tool. */
  branch(args: {
    merged?: boolean | /** Commit reference: full/short hash, or a relative ref (HEAD~1). */ string // Only branches merged into HEAD (true) or into this commit.
    target?: /** Branch name. */ string | /** Commit reference: full/short hash, or a relative ref (HEAD~1). */ string
  }): Promise<string>
}
`)
  })

  it('S9.1 array item descriptions and deprecation stay in the property doc', async () => {
    const schema = {
      type: 'object',
      properties: {
        paths: { type: 'array', description: 'Files to stage.', items: { type: 'string', description: 'A path, never starting with "-".' } },
        old: { type: 'string', deprecated: true, description: 'Use paths.' },
      },
    }
    expect(await embedded([mcpTool('add', schema)])).toBe(`declare const tools: {
  /** The add tool. */
  add(args: {
    paths?: string[] // Files to stage. Items: A path, never starting with "-".
    old?: string // Use paths. @deprecated
  }): Promise<string>
}
`)
  })

  it('S9.1 a doc comment and type repeated across tools is declared once, as an alias named after the key', async () => {
    const repo = { type: 'string', description: 'Path to the Git repository. Defaults to the session working directory.', default: '.' }
    const force = { type: 'boolean', description: 'Force the operation, bypassing every safety check there is: a lost commit cannot be recovered afterwards.' }
    const forceOther = { type: 'boolean', description: 'Allow adding files that .gitignore would otherwise leave out, such as build output or local settings.' }
    const date = { type: 'string', description: 'Only commits after this date (ISO 8601, or relative like 2.weeks).' }
    const tools = ['git_add', 'git_log', 'git_push'].map((name, index) =>
      mcpTool(name, { type: 'object', properties: { [`only_${index}`]: { type: 'boolean' }, path: repo, force: index === 0 ? forceOther : force, date } }),
    )
    tools.push(mcpTool('git_tag', { type: 'object', properties: { force: forceOther, date } }))
    expect(await embedded(tools)).toBe(`type Date2 = string // Only commits after this date (ISO 8601, or relative like 2.weeks).
type Force = boolean // Allow adding files that .gitignore would otherwise leave out, such as build output or local settings.
type Force2 = boolean // Force the operation, bypassing every safety check there is: a lost commit cannot be recovered afterwards.
type Path = string // Path to the Git repository. Defaults to the session working directory. @default "."
declare const tools: {
  /** The git_add tool. */
  git_add(args: { only_0?: boolean; path?: Path; force?: Force; date?: Date2 }): Promise<string>
  /** The git_log tool. */
  git_log(args: { only_1?: boolean; path?: Path; force?: Force2; date?: Date2 }): Promise<string>
  /** The git_push tool. */
  git_push(args: { only_2?: boolean; path?: Path; force?: Force2; date?: Date2 }): Promise<string>
  /** The git_tag tool. */
  git_tag(args: { force?: Force; date?: Date2 }): Promise<string>
}
`)
  })

  it('S9.1 a sub-object repeated across tools is declared once, named after its key (singular for array items)', async () => {
    const commit = {
      type: 'object',
      properties: { hash: { type: 'string', description: 'Full hash.' }, subject: { type: 'string', description: 'First line.' } },
      required: ['hash', 'subject'],
    }
    const tools = ['log', 'show'].map((name) => mcpTool(name, { type: 'object', properties: {} }, { type: 'object', properties: { commits: { type: 'array', items: commit } }, required: ['commits'] }))
    tools.push(mcpTool('head', { type: 'object', properties: {} }, commit))
    expect(await embedded(tools)).toBe(`type Commit = {
  hash: string // Full hash.
  subject: string // First line.
}
declare const tools: {
  /** The head tool. */
  head(args: {}): Promise<Commit>
  /** The log tool. */
  log(args: {}): Promise<{ commits: Commit[] }>
  /** The show tool. */
  show(args: {}): Promise<{ commits: Commit[] }>
}
`)
  })
})

describe('shared leading properties (S9.1)', () => {
  it('S9.1 objects of different tools that start with the same properties print as Base & { rest }', async () => {
    const job = {
      jobId: { type: 'string' },
      status: { enum: ['running', 'exited'], description: 'Where the job is.' },
      exitCode: { type: ['integer', 'null'], description: 'Exit code once ended, else null.' },
      totalBytes: { type: 'integer', description: 'Bytes of output the job ever wrote.' },
    }
    const required = Object.keys(job)
    const tools = [
      mcpTool('job_kill', { type: 'object', properties: {} }, { type: 'object', properties: { ...job, killed: { type: 'boolean' } }, required }),
      mcpTool('job_list', { type: 'object', properties: {} }, { type: 'array', items: { type: 'object', properties: job, required } }),
      mcpTool('job_read', { type: 'object', properties: {} }, { type: 'object', properties: { ...job, output: { type: 'string' }, nextOffset: { type: 'integer' } }, required: [...required, 'output'] }),
    ]
    expect(await embedded(tools)).toBe(`type JobResult = {
  jobId: string
  status: "running" | "exited" // Where the job is.
  exitCode: number | null // Exit code once ended, else null.
  totalBytes: number // Bytes of output the job ever wrote.
}
declare const tools: {
  /** The job_kill tool. */
  job_kill(args: {}): Promise<JobResult & { killed?: boolean }>
  /** The job_list tool. */
  job_list(args: {}): Promise<JobResult[]>
  /** The job_read tool. */
  job_read(args: {}): Promise<JobResult & { output: string; nextOffset?: number }>
}
`)
  })
})

describe('exact object types (S9.1, issue 10)', () => {
  it('S9.1 additionalProperties: false with no properties means no keys at all, not {}', async () => {
    expect(await embedded([mcpTool('ping', { type: 'object', properties: {}, additionalProperties: false }, { type: 'object', additionalProperties: false })])).toBe(`declare const tools: {
  /** The ping tool. */
  ping(args: Record<string, never>): Promise<Record<string, never>>
}
`)
  })

  it('S9.1 anyOf arms that only list required keys become a union of the object with those keys required', async () => {
    const schema = {
      type: 'object',
      description: 'Ignored at the root.',
      properties: { path: { type: 'string' }, url: { type: 'string' }, depth: { type: 'integer' } },
      required: ['depth'],
      additionalProperties: false,
      anyOf: [{ required: ['path'] }, { required: ['url'], description: 'A remote.' }],
    }
    expect(await embedded([mcpTool('clone', schema)])).toBe(`declare const tools: {
  /** The clone tool. */
  clone(args: { path: string; url?: string; depth: number } | /** A remote. */ { path?: string; url: string; depth: number }): Promise<string>
}
`)
  })
})

describe('the embedded form (run_code description) and the file form', () => {
  it('S9.1 embedded: one method a tool, the output doc as Returns:, quoted names, a note for an unconvertible side', async () => {
    const tools: TypegenTool[] = [
      { name: 'my-tool', description: 'Namespaced.\nTwo lines.', parameters: z.object({ q: z.string() }), output: z.array(z.string()).describe('Matches, best first.') },
      { ...mcpTool('broken', { type: 'object', properties: { mode: { enum: 'not-an-array' } } }), description: 'Has a malformed schema.' },
    ]
    expect(await embedded(tools)).toBe(`declare const tools: {
  /** Has a malformed schema. (Argument type unavailable: its schema could not be converted.) */
  broken(args: unknown): Promise<string>
  /**
   * Namespaced.
   * Two lines. Returns: Matches, best first.
   */
  "my-tool"(args: { q: string }): Promise<string[]>
}
`)
  })

  it('S9.1 the file form declares the same aliases with doc comments above, before the two maps', async () => {
    const status = {
      type: 'object',
      properties: { branch: { type: ['string', 'null'], description: 'Current branch (null on detached HEAD).' }, clean: { type: 'boolean' } },
      required: ['branch', 'clean'],
    }
    const tools = ['commit', 'stash'].map((name) => mcpTool(name, { type: 'object', properties: {} }, { type: 'object', properties: { [name]: { type: 'string' }, status }, required: ['status'] }))
    const text = await generateDeclarations(tools)
    expect(text.slice(text.indexOf('*/\n') + 3, text.indexOf('/** Every tool'))).toBe(`/** Types declared once: used more than once below, or recursive. */
type Status = {
  /** Current branch (null on detached HEAD). */
  branch: string | null
  clean: boolean
}
/** Arguments of each tool, by tool name. */
interface ToolArgsMap {
  /** The commit tool. */
  commit: {};
  /** The stash tool. */
  stash: {};
}
/** Canonical value each tool resolves to, by tool name. */
interface ToolOutputMap {
  commit: { commit?: string; status: Status };
  stash: { stash?: string; status: Status };
}
`)
  })
})
