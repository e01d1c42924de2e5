/**
 * The "done when", as a user runs it: `ptc run` on a script that reads, edits, writes a
 * test and runs the test suite (`npm test` through the sandboxed bash tool) in a temporary copy of
 * a small real repository (this repo's src/tools plus a tiny package.json). Under workspace-write
 * it works; under --preset read-only every write is refused and the files stay as they were (S8).
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = path.join(import.meta.dirname, '..', '..')

const SCRIPT = `
const pkg = await tools.read_file({ path: 'package.json' })
const types = await tools.read_file({ path: 'src/tools/types.ts' })
const refused: string[] = []
let replacements = 0
let created = false
try {
  const edit = await tools.edit_file({ path: 'src/tools/types.ts', old: 'export type JsonValue =', new: '/** Edited by ptc. */\\nexport type JsonValue =' })
  replacements = edit.replacements
} catch (error) {
  refused.push(\`\${(error as ToolCallError).toolName}: \${(error as Error).message}\`)
}
try {
  const written = await tools.write_file({
    path: 'test/edited.test.mjs',
    content: "import assert from 'node:assert/strict'\\nimport { readFileSync } from 'node:fs'\\nimport { test } from 'node:test'\\ntest('edit landed', () => assert.match(readFileSync('src/tools/types.ts', 'utf8'), /Edited by ptc/))\\n",
  })
  created = written.created
} catch (error) {
  refused.push(\`\${(error as ToolCallError).toolName}: \${(error as Error).message}\`)
}
const tests = await tools.bash({ command: 'npm test 2>&1; echo ran > ran.txt', timeoutMs: 60000 })
if (!('exitCode' in tests)) throw new Error('bash ran in the background, but this script runs it in the foreground')
return { pkgLines: pkg.totalLines, typesLines: types.totalLines, replacements, created, refused, exitCode: tests.exitCode, passed: (tests.stdout.match(/^ℹ pass (\\d+)/m) ?? [])[1] ?? null }
`

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex')

describe('workspace tools end to end (S8, S9)', () => {
  let workspace: string
  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-e2e-ws-')))
    fs.cpSync(path.join(root, 'src', 'tools'), path.join(workspace, 'src', 'tools'), { recursive: true })
    fs.mkdirSync(path.join(workspace, 'test'))
    fs.writeFileSync(path.join(workspace, 'package.json'), `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`)
    fs.writeFileSync(
      path.join(workspace, 'test', 'types.test.mjs'),
      "import assert from 'node:assert/strict'\nimport { readFileSync } from 'node:fs'\nimport { test } from 'node:test'\ntest('types declare JsonValue', () => assert.match(readFileSync('src/tools/types.ts', 'utf8'), /export type JsonValue/))\n",
    )
    fs.writeFileSync(path.join(workspace, 'script.ts'), SCRIPT)
  })
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }))

  // `node` is the Node 24 on PATH (scripts/setup.sh), as a user would run it.
  const ptc = (...args: string[]) =>
    run('node', [path.join(root, 'bin', 'ptc.js'), 'run', '--json', '--workspace', workspace, '--journal', path.join(workspace, '.ptc', 'journal.jsonl'), ...args, path.join(workspace, 'script.ts')], {
      cwd: workspace,
      timeout: 90_000,
    }).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '' }),
    )

  it('S8 under workspace-write the script reads, edits, adds a test and runs the suite', async () => {
    const { code, stdout } = await ptc()
    const value = JSON.parse(stdout)
    expect(value.status, stdout).toBe('ok')
    expect(code).toBe(0)
    expect(value.value).toMatchObject({ replacements: 1, created: true, refused: [], exitCode: 0, passed: '2' })
    expect(value.value.typesLines).toBeGreaterThan(100)
    expect(fs.readFileSync(path.join(workspace, 'src', 'tools', 'types.ts'), 'utf8')).toContain('/** Edited by ptc. */\nexport type JsonValue =')
    expect(fs.existsSync(path.join(workspace, 'test', 'edited.test.mjs'))).toBe(true)
    expect(fs.readFileSync(path.join(workspace, 'ran.txt'), 'utf8')).toBe('ran\n')
  }, 120_000)

  it('S8 under --preset read-only the writes are refused inside the script and the files are unchanged', async () => {
    const before = sha(path.join(workspace, 'src', 'tools', 'types.ts'))
    const { code, stdout } = await ptc('--preset', 'read-only')
    const value = JSON.parse(stdout)
    expect(value.status, stdout).toBe('ok')
    expect(code).toBe(0)
    expect(value.value.refused).toHaveLength(2)
    expect(value.value.refused[0]).toMatch(/^edit_file: .*read-only/)
    expect(value.value.refused[1]).toMatch(/^write_file: .*read-only/)
    // The suite still runs (reading is fine) and passes its one original test; the final write fails (exit 1).
    expect(value.value).toMatchObject({ replacements: 0, created: false, exitCode: 1, passed: '1' })
    expect(sha(path.join(workspace, 'src', 'tools', 'types.ts'))).toBe(before)
    expect(fs.existsSync(path.join(workspace, 'test', 'edited.test.mjs'))).toBe(false)
    // The command ran, sandboxed read-only: its own write failed too.
    expect(fs.existsSync(path.join(workspace, 'ran.txt'))).toBe(false)
  }, 120_000)

  it('S11.1 in human mode each tool call prints its pending and completed cards to stderr', async () => {
    fs.writeFileSync(path.join(workspace, 'small.ts'), "const r = await tools.read_file({ path: 'package.json', limit: 2 })\nreturn r.totalLines\n")
    const { stdout, stderr } = await run('node', [path.join(root, 'bin', 'ptc.js'), 'run', '--workspace', workspace, '--journal', path.join(workspace, '.ptc', 'j.jsonl'), path.join(workspace, 'small.ts')], { cwd: workspace, timeout: 60_000 })
    expect(stdout).toBe('8\n')
    expect(stderr).toContain(`… Read package.json\n  at package.json\n✓ read ${path.join(workspace, 'package.json')} (lines 1-2)\n  1 │ {\n  2 │   "name": "tiny",\n`)
  }, 60_000)

  it('S8 --preset rejects an unknown name as a usage error', async () => {
    const result = await run('node', [path.join(root, 'bin', 'ptc.js'), 'run', '--preset', 'yolo', '--workspace', workspace, path.join(workspace, 'script.ts')], { cwd: workspace, timeout: 30_000 }).catch((error) => error)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--preset takes one of read-only, workspace-write, danger-full-access/)
  }, 30_000)

  it('S8 a workspace whose .ptc is a symbolic link is refused at start with one ptc: line and exit 2, not an internal error with a stack', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-elsewhere-'))
    try {
      fs.rmSync(path.join(workspace, '.ptc'), { recursive: true, force: true })
      fs.symlinkSync(elsewhere, path.join(workspace, '.ptc'))
      const result = await run('node', [path.join(root, 'bin', 'ptc.js'), 'run', '--no-typecheck', '--workspace', workspace, path.join(workspace, 'script.ts')], { cwd: workspace, timeout: 30_000 }).catch((error) => error)
      expect(result.code).toBe(2)
      expect(result.stderr).toBe(`ptc: ${path.join(workspace, '.ptc')} is a symbolic link; ptc-runner keeps the session journal and spills in ${path.join(workspace, '.ptc')} and refuses to start while they could be redirected. Remove it and start again.\n`)
      expect(fs.readdirSync(elsewhere)).toEqual([])
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true })
    }
  }, 30_000)
})
