/**
 * The package's bundles (issue 12: `ptc run` of `return 1` ≤ 0.4 s), a step of
 * `scripts/build.ts` run after `dist/` holds the emitted modules with `.js` specifiers:
 * - one esbuild build, with code splitting, of the CLI's two entries the bin script imports
 *   (`src/cli/main.js`, `src/cli/prestart-run.js`) and of every export of the package (`.`,
 *   `./server`, `./ai`, `./openai-agents`, `./view`), into `dist/bundle/` (an entry file each and
 *   the chunks they share or import lazily: one instance of each module for all of them), which
 *   `dist/bin/ptc.js` and `package.json`'s `exports` name. A `--tools` plugin that imports
 *   `ptc-runner` so gets the modules the CLI already loaded, not a second copy of the library;
 * - the isolate worker process's entry, `dist/src/ptc/isolate/isolate-worker-entry.js`, replaced
 *   in place by one file holding the modules it imports.
 * Loading about 250 modules one by one was most of a process's start: resolving, reading and
 * linking each (see docs/PERFORMANCE.md, round 21). Packages stay imports (cordis, the MCP SDK…)
 * except zod: its 95 modules took about 70 ms of `ptc run`'s start, bundled about 40 (`ptc run`
 * 405.5 → 372.0 ms, medians of 10). The `z` ptc-runner exports is that copy; schemas made by the
 * zod a user imports work with it, since zod 4 keeps its registry of `.describe()`/`.meta()` and
 * its global config on `globalThis` and tells its types apart by traits, not by `instanceof` of
 * one copy's classes. The per-module files stay in `dist/src/` (declarations, the worker entries,
 * the paths below).
 *
 * Every module's `import.meta.url` becomes the URL of its emitted file in `dist/src/` (relative to
 * the bundle file at run time), so paths computed from it (the worker entries, the runtime's
 * folder, `package.json`) are the same as unbundled. Any other `import.meta` use fails the build.
 */
import * as esbuild from 'esbuild'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/** The modules the bin script imports (`src/cli/NAME.ts`), entries of the bundle, `dist/bundle/NAME.js`. */
export const CLI_ENTRIES = ['main', 'prestart-run'] as const

/** Each export of the package (`package.json`'s `exports`) by bundle entry name → its module in `src/`. */
export const EXPORT_ENTRIES: Readonly<Record<string, string>> = {
  index: 'index',
  server: 'server/serve',
  ai: 'adapters/ai/index',
  'openai-agents': 'adapters/openai-agents/index',
  view: 'view/view-server',
}

/** The name every bundled module's own URL is read from (esbuild renames it per module). */
const MODULE_URL = '__ptcModuleUrl'

/**
 * An esbuild plugin: each module of `dist/src/` loaded with its `import.meta.url` replaced by the
 * URL of its own file, computed from the URL of the bundle file it lands in, which is in `outdir`.
 * @throws (through esbuild) when a module uses `import.meta` otherwise.
 */
function ownModuleUrls(outdir: string): esbuild.Plugin {
  return {
    name: 'ptc-own-module-urls',
    setup(build) {
      build.onLoad({ filter: /\.js$/, namespace: 'file' }, async (args) => {
        const text = readFileSync(args.path, 'utf8')
        if (!text.includes('import.meta')) return { contents: text, loader: 'js' }
        // `define` replaces the expression only, not the same words in a string or a comment.
        const { code } = await esbuild.transform(text, { loader: 'js', format: 'esm', define: { 'import.meta.url': MODULE_URL } })
        if (/import\.meta(?!\.url\b)/.test(code.replace(/(['"`])import\.meta\.url\1/g, ''))) {
          return { errors: [{ text: `${args.path} uses import.meta other than import.meta.url, which scripts/bundle-package.ts cannot rewrite` }] }
        }
        const relative = path.relative(outdir, args.path).split(path.sep).join('/')
        return { contents: `const ${MODULE_URL} = new URL(${JSON.stringify(relative)}, import.meta.url).href;\n${code}`, loader: 'js' }
      })
    },
  }
}

/** Every package an import, except zod (see the module comment). */
const PACKAGES_BUT_ZOD: esbuild.Plugin = {
  name: 'ptc-packages-but-zod',
  setup(build) {
    const inZod = `${path.sep}node_modules${path.sep}zod${path.sep}`
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path === 'zod' || args.path.startsWith('zod/') || args.importer.includes(inZod) ? undefined : { external: true }))
  },
}

/** esbuild options both bundles share. */
const COMMON: esbuild.BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  // Readable frames in an internal error's stack: names and code as emitted (a module that uses
  // import.meta is reprinted by esbuild first, so its lines move).
  minify: false,
}

/**
 * Writes both bundles into `dist` (the package's build folder, already holding the emitted
 * modules). Returns the bundle files written, relative to `dist`. `logLevel`: what esbuild prints
 * itself (its errors are in the thrown error's message as well).
 * @throws when esbuild fails (a module it cannot resolve, an `import.meta` it cannot rewrite).
 */
export async function bundlePackage(dist: string, logLevel: esbuild.LogLevel = 'warning'): Promise<string[]> {
  const bundleDir = path.join(dist, 'bundle')
  const workerEntry = path.join(dist, 'src', 'ptc', 'isolate', 'isolate-worker-entry.js')
  const options = { ...COMMON, logLevel }
  const entries = {
    ...Object.fromEntries(CLI_ENTRIES.map((name) => [name, path.join(dist, 'src', 'cli', `${name}.js`)])),
    ...Object.fromEntries(Object.entries(EXPORT_ENTRIES).map(([name, module]) => [name, path.join(dist, 'src', `${module}.js`)])),
  }
  const [shared, worker] = await Promise.all([
    esbuild.build({ ...options, entryPoints: entries, outdir: bundleDir, splitting: true, chunkNames: '[name]-[hash]', metafile: true, plugins: [PACKAGES_BUT_ZOD, ownModuleUrls(bundleDir)] }),
    esbuild.build({ ...options, entryPoints: [workerEntry], outfile: workerEntry, allowOverwrite: true, metafile: true, packages: 'external', plugins: [ownModuleUrls(path.dirname(workerEntry))] }),
  ])
  const written = [...Object.keys(shared.metafile.outputs), ...Object.keys(worker.metafile.outputs)].map((file) => path.resolve(file))
  const renamed = written.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(RENAMED_ERROR_CLASS)].map((match) => match[1]!))
  if (renamed.length > 0) {
    throw new Error(`bundle: ${[...new Set(renamed)].join(', ')} name themselves in their class body, so esbuild renamed them (class _${renamed[0]}) and their errors' name would change; refer to the class another way there (a module-level function)`)
  }
  return written.map((file) => path.relative(dist, file))
}

/**
 * `var XError = class _XError`: esbuild renames a class that names itself in its body, which
 * changes its `name` (an error's, shown to users and models) unless every name is kept
 * (`keepNames`, about 10 ms more of `ptc run`'s start: 365.5 → 375.0 ms, medians of 10).
 */
const RENAMED_ERROR_CLASS = /\bvar (\w*Error) = class _\1\b/g
