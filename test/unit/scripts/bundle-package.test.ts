/**
 * The package's bundles (issue 12, `scripts/bundle-package.ts`) on a small stand-in for `dist/`:
 * the shared bundle (the CLI's entries and every export) and the isolate worker's entry each hold
 * ptc-runner's own modules and keep packages as imports, the entries share one instance of each
 * module, every module's `import.meta.url` still names its own emitted file (so paths computed
 * from it are as unbundled), a string that reads `import.meta.url` is left as written, and any
 * other `import.meta` use fails the build with the module named.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bundlePackage } from '../../../scripts/bundle-package.ts'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A stand-in `dist/` holding `files` (path relative to it → text). */
function fakeDist(files: Record<string, string>): string {
  const dist = mkdtempSync(join(tmpdir(), 'ptc-bundle-package-'))
  made.push(dist)
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, file)), { recursive: true })
    writeFileSync(join(dist, file), text)
  }
  return dist
}

const WHERE = `export const folder = new URL('.', import.meta.url).href\nexport const words = 'import.meta.url'\nexport const instance = {}\n` +
  `export class NamedError extends Error { constructor() { super('x'); this.name = new.target.name } }\n`
const BASE = {
  'src/lib/where.js': WHERE,
  'src/cli/main.js': `import { folder, instance, words } from '../lib/where.js'\nimport { basename } from 'node:path'\nexport async function main() { const later = await import('./later.js'); return { folder, words, instance, later: later.name, base: basename('/a/b') } }\n`,
  'src/cli/prestart-run.js': `export { instance } from '../lib/where.js'\n`,
  'src/cli/later.js': `export const name = new URL('later.js', import.meta.url).pathname.endsWith('/src/cli/later.js') ? 'own url' : 'wrong url'\n`,
  // The package's exports: the library entry shares the CLI's modules; the others only need to exist.
  'src/index.js': `export { instance, NamedError } from './lib/where.js'\n`,
  'src/server/serve.js': 'export const serve = 1\n',
  'src/adapters/ai/index.js': 'export const ai = 1\n',
  'src/adapters/openai-agents/index.js': 'export const agents = 1\n',
  'src/view/view-server.js': 'export const view = 1\n',
  'src/ptc/isolate/isolate-worker-entry.js': `import { folder } from '../../lib/where.js'\nprocess.stdout.write(folder)\n`,
}

describe('the package start-up bundles (issue 12, S9.1 worker entry)', () => {
  it('bundle ptc-runner\'s own modules, the CLI and the library sharing them, each keeping the URL of its emitted file; packages stay imports', async () => {
    const dist = fakeDist(BASE)
    const written = await bundlePackage(dist)
    expect(written).toContain(join('bundle', 'main.js'))
    expect(written).toContain(join('src', 'ptc', 'isolate', 'isolate-worker-entry.js'))
    // The lazy import() is a chunk of its own beside main.js.
    expect(readdirSync(join(dist, 'bundle')).length).toBeGreaterThan(1)
    const cliText = readFileSync(join(dist, 'bundle', 'main.js'), 'utf8')
    expect(cliText).not.toMatch(/from ["']\.\.\//)
    expect(cliText).toMatch(/from ["']node:path["']/)
    const { main } = (await import(pathToFileURL(join(dist, 'bundle', 'main.js')).href)) as { main: () => Promise<Record<string, unknown>> }
    expect(await main()).toMatchObject({ folder: pathToFileURL(join(dist, 'src', 'lib')).href + '/', words: 'import.meta.url', later: 'own url', base: 'b' })
    // The bin script's two entries and the library's share one instance of each module they import.
    const prestart = (await import(pathToFileURL(join(dist, 'bundle', 'prestart-run.js')).href)) as { instance: object }
    const library = (await import(pathToFileURL(join(dist, 'bundle', 'index.js')).href)) as { instance: object; NamedError: new () => Error }
    expect((await main()).instance).toBe(prestart.instance)
    expect(library.instance).toBe(prestart.instance)
    // Error classes keep their own names (PtcError's name is new.target.name).
    expect(new library.NamedError().name).toBe('NamedError')
    const entry = join(dist, 'src', 'ptc', 'isolate', 'isolate-worker-entry.js')
    expect(readFileSync(entry, 'utf8')).not.toMatch(/from ["']\.\.?\//)
    expect(execFileSync(process.execPath, [entry], { encoding: 'utf8' })).toBe(pathToFileURL(join(dist, 'src', 'lib')).href + '/')
  })

  it('fail the build, naming the module, on an import.meta use other than import.meta.url', async () => {
    const dist = fakeDist({ ...BASE, 'src/lib/where.js': `${WHERE}export const dir = import.meta.dirname\n` })
    await expect(bundlePackage(dist, 'silent')).rejects.toThrow(/where\.js uses import\.meta other than import\.meta\.url/)
  })

  it('fail the build, naming the class, when an error class names itself in its body (esbuild would rename it, and its errors\' name)', async () => {
    const dist = fakeDist({
      ...BASE,
      'src/lib/where.js': `${WHERE}export class SelfError extends Error { static is(x) { return x instanceof SelfError } }\n`,
      'src/index.js': `export { instance, SelfError } from './lib/where.js'\n`,
    })
    await expect(bundlePackage(dist, 'silent')).rejects.toThrow(/SelfError name themselves in their class body, so esbuild renamed them \(class _SelfError\)/)
  })
})
