/**
 * `npm run build` (also run by `npm pack` / `npm publish` through `prepack`): the package users
 * install, in `dist/`. Development from the repository needs no build (Node 24 runs the sources).
 * 1. `tsgo -p tsconfig.build.json` (TypeScript 7's native compiler, the one `npm test` type-checks
 *    with): `src/`, `runtime/`, `typegen/` → JavaScript and declarations. Its output is TypeScript
 *    6's `tsc` output but for quote style (kept as written) and the member order of some inferred
 *    object types in declarations (kept in source order), compared file by file on 2026-12-03;
 *    it emits with 2 s of CPU where tsc took 9 s. With `PTC_BUILD_NO_CHECK=1` it emits without
 *    type-checking (`--noCheck`): for callers that have just type-checked the same sources, as
 *    `npm test` does before the pack-install test builds the package.
 * 2. Relative `.ts` specifiers → `.js` in every emitted file: the compiler rewrites the imports of
 *    JavaScript only (tsc's static ones only), so this covers declaration files, worker entries
 *    named by path (`new URL('./x-worker-entry.ts', import.meta.url)`) and any `import()` left,
 *    whatever entries exist.
 *    Every rewritten target must exist in `dist/`, or the build fails.
 * 3. The in-isolate runtime bundled once, with its self-containment check, into
 *    `dist/runtime/isolate-runtime.bundle.txt` (read instead of bundling at run time).
 * 4. `bin/ptc.js` → `dist/bin/ptc.js`, executable.
 * 5. Folders shipped as sources ({@link SOURCE_ASSET_DIRS}: the viewer's browser app, which
 *    esbuild bundles when `ptc view` starts) copied as they are.
 * 6. The bundles (`scripts/bundle-package.ts`): the CLI and the package's exports into
 *    `dist/bundle/`, which `dist/bin/ptc.js` imports instead of `dist/src/cli/` (main.js,
 *    prestart-run.js) and `package.json`'s `exports` name (checked here), and the isolate
 *    worker's entry.
 * Exits non-zero with the reason on any failure.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { buildIsolateRuntimeSource, PREBUILT_RUNTIME_FILE } from '../src/ptc/isolate/isolate-runtime-source.ts'
import { bundlePackage, CLI_ENTRIES, EXPORT_ENTRIES } from './bundle-package.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
/** Folders tsc does not compile (see tsconfig.build.json's exclude) that the package ships as written. */
const SOURCE_ASSET_DIRS = ['src/view/client']
const DIST = path.join(ROOT, 'dist')
/** A quoted relative path ending in `.ts` (not `.d.ts`), e.g. `'../host/create-host.ts'`. */
const RELATIVE_TS = /(['"])(\.\.?\/[^'"\n]*?)(?<!\.d)\.ts\1/g

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
}

/** Rewrite relative `.ts` specifiers of one emitted file; returns the problems found. */
function rewriteSpecifiers(file: string): string[] {
  const problems: string[] = []
  const text = readFileSync(file, 'utf8')
  const rewritten = text.replace(RELATIVE_TS, (_match, quote: string, stem: string) => {
    const target = path.resolve(path.dirname(file), `${stem}.js`)
    if (!existsSync(target)) problems.push(`${path.relative(ROOT, file)}: ${stem}.ts has no ${path.relative(ROOT, target)}`)
    return `${quote}${stem}.js${quote}`
  })
  if (rewritten !== text) writeFileSync(file, rewritten)
  return problems
}

rmSync(DIST, { recursive: true, force: true })
// The package's bin script (not exported), which starts the native compiler for this platform.
const tsgo = path.join(path.dirname(createRequire(import.meta.url).resolve('@typescript/native-preview/package.json')), 'bin', 'tsgo')
const noCheck = process.env.PTC_BUILD_NO_CHECK === '1' ? ['--noCheck'] : []
execFileSync(process.execPath, [tsgo, '-p', path.join(ROOT, 'tsconfig.build.json'), ...noCheck], { stdio: 'inherit', cwd: ROOT })

for (const dir of SOURCE_ASSET_DIRS) cpSync(path.join(ROOT, dir), path.join(DIST, dir), { recursive: true })
mkdirSync(path.join(DIST, 'bin'))
copyFileSync(path.join(ROOT, 'bin', 'ptc.js'), path.join(DIST, 'bin', 'ptc.js'))
chmodSync(path.join(DIST, 'bin', 'ptc.js'), 0o755)

const problems = files(DIST)
  .filter((file) => file.endsWith('.js') || file.endsWith('.d.ts'))
  .flatMap(rewriteSpecifiers)
if (problems.length > 0) {
  console.error(`build: relative imports with no emitted module:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}

const runtime = await buildIsolateRuntimeSource()
writeFileSync(path.join(DIST, 'runtime', PREBUILT_RUNTIME_FILE), runtime.code)

const bundles = await bundlePackage(DIST)
// Every export's JavaScript is its bundle entry (the declarations stay in dist/src/).
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string } | string> }
const exported = Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [] : [target.default]))
const expected = Object.keys(EXPORT_ENTRIES).map((name) => `./dist/bundle/${name}.js`)
if (JSON.stringify([...exported].sort()) !== JSON.stringify([...expected].sort())) {
  console.error(`build: package.json's exports name ${exported.join(', ')}; the bundle has ${expected.join(', ')}`)
  process.exit(1)
}
const bin = path.join(DIST, 'bin', 'ptc.js')
let binText = readFileSync(bin, 'utf8')
for (const name of CLI_ENTRIES) {
  const unbundled = `'../src/cli/${name}.js'`
  if (!binText.includes(unbundled)) {
    console.error(`build: dist/bin/ptc.js does not import ${unbundled}; scripts/build.ts cannot point it at the bundled CLI`)
    process.exit(1)
  }
  binText = binText.replace(unbundled, `'../bundle/${name}.js'`)
}
writeFileSync(bin, binText)

console.log(`build: dist/ written (${files(DIST).length} files; runtime bundle ${runtime.code.length} chars from ${runtime.inputs.length} files; ${bundles.length} bundle files)`)
