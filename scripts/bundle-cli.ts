/**
 * The package's start-up bundles (issue 12: `ptc run` of `return 1` ≤ 0.4 s), a step of
 * `scripts/build.ts` run after `dist/` holds the emitted modules with `.js` specifiers:
 * - the CLI, `dist/src/cli/main.js` and `prestart-run.js` and everything they import of
 *   ptc-runner's own modules, into `dist/cli/` (an entry file each and the chunks they share or
 *   import lazily, esbuild's code splitting: one instance of each module), which
 *   `dist/bin/ptc.js` imports;
 * - the isolate worker process's entry, `dist/src/ptc/isolate/isolate-worker-entry.js`, replaced
 *   in place by one file holding the modules it imports.
 * Loading about 250 modules one by one was most of a process's start: resolving, reading and
 * linking each (see docs/PERFORMANCE.md, round 21). Packages stay imports (cordis, the MCP SDK…),
 * so a user's plugin that imports one gets the same instance as the CLI, except zod: its 95
 * modules took 70 ms of `ptc run`'s start, and bundled without its 64 locales, which ptc-runner
 * never uses (only `en`, zod's default), 30 ms. A user's schemas made by the zod they import work
 * with the CLI's own copy: zod 4 keeps its registry of `.describe()`/`.meta()` on `globalThis`
 * and tells its types apart by traits, not by `instanceof` of one copy's classes. The library's
 * exports keep the per-module files, so a `--tools` plugin that imports `ptc-runner` loads them
 * beside the bundle (about 120 modules and zod's 100 more: such a `ptc run` took 519–538 ms
 * against 463–497 unbundled in a review's runs, while one without plugins took 384–403 against
 * 461–469); bundling the library's exports with the CLI would share them and is left for later.
 *
 * Every module's `import.meta.url` becomes the URL of its emitted file in `dist/src/` (relative to
 * the bundle file at run time), so paths computed from it (the worker entries, the runtime's
 * folder, `package.json`) are the same as unbundled. Any other `import.meta` use fails the build.
 */
import * as esbuild from 'esbuild'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/** The CLI's modules the bin script imports (`src/cli/NAME.ts`), each an entry of the CLI bundle, `dist/cli/NAME.js`. */
export const CLI_ENTRIES = ['main', 'prestart-run'] as const

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
          return { errors: [{ text: `${args.path} uses import.meta other than import.meta.url, which scripts/bundle-cli.ts cannot rewrite` }] }
        }
        const relative = path.relative(outdir, args.path).split(path.sep).join('/')
        return { contents: `const ${MODULE_URL} = new URL(${JSON.stringify(relative)}, import.meta.url).href;\n${code}`, loader: 'js' }
      })
    },
  }
}

/** Every package an import (see the module comment), but zod, whose locales but `en` are left out. */
const PACKAGES_BUT_ZOD: esbuild.Plugin = {
  name: 'ptc-packages-but-zod',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path === 'zod' || args.path.startsWith('zod/') || args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? undefined : { external: true }))
    // zod's `locales` namespace (every locale, re-exported by each entry point), as only `en`.
    // A path of its own (esbuild prints it in a comment of the bundle: no build machine's folder).
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? { path: 'zod/v4/locales (en only)', namespace: 'ptc-zod-locales', pluginData: path.join(args.resolveDir, '..', 'locales') } : undefined))
    build.onLoad({ filter: /.*/, namespace: 'ptc-zod-locales' }, (args) => ({ contents: "export { default as en } from './en.js'", loader: 'js', resolveDir: args.pluginData as string }))
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
export async function bundleCli(dist: string, logLevel: esbuild.LogLevel = 'warning'): Promise<string[]> {
  const cliDir = path.join(dist, 'cli')
  const workerEntry = path.join(dist, 'src', 'ptc', 'isolate', 'isolate-worker-entry.js')
  const options = { ...COMMON, logLevel }
  const [cli, worker] = await Promise.all([
    esbuild.build({ ...options, entryPoints: Object.fromEntries(CLI_ENTRIES.map((name) => [name, path.join(dist, 'src', 'cli', `${name}.js`)])), outdir: cliDir, splitting: true, chunkNames: '[name]-[hash]', metafile: true, plugins: [PACKAGES_BUT_ZOD, ownModuleUrls(cliDir)] }),
    esbuild.build({ ...options, entryPoints: [workerEntry], outfile: workerEntry, allowOverwrite: true, metafile: true, packages: 'external', plugins: [ownModuleUrls(path.dirname(workerEntry))] }),
  ])
  return [...Object.keys(cli.metafile.outputs), ...Object.keys(worker.metafile.outputs)].map((file) => path.relative(dist, path.resolve(file)))
}
