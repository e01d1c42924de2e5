/**
 * Builds the checker's start-up snapshot (see `checker-snapshot.ts`); started detached by
 * `findCheckerSnapshot` as `node checker-snapshot-build.ts <cache folder> <name>`. Bundles
 * `checker-snapshot-entry.ts` to one CommonJS file (esbuild; esbuild itself is left to be loaded
 * at run time), runs `node --snapshot-blob <blob> --build-snapshot <bundle>`, then publishes the
 * blob and its manifest by atomic renames, blob first, so a reader sees either no manifest or a
 * manifest whose blob is complete, and prunes the folder to the most recently used snapshots
 * (`pruneSnapshots`). Removes its lock and temporary files however it ends. Exit
 * code 0 when published. Exports nothing.
 */
import { spawnSync } from 'node:child_process'
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { writeCacheFile } from '../user-cache.ts'
import { type CheckerSnapshotManifest, fileSha256, isOwnSource, PACKAGE_ROOT, pruneSnapshots, SNAPSHOT_ENTRY, SNAPSHOT_FORMAT, snapshotKey } from './checker-snapshot.ts'

const [folder, name] = process.argv.slice(2)
if (folder === undefined || name === undefined) throw new Error('usage: checker-snapshot-build.ts <cache folder> <name>')
const temp = (suffix: string) => path.join(folder, `.${name}.${process.pid}.${suffix}`)
const shim = temp('esbuild.cjs')
const bundle = temp('bundle.cjs')
const blob = temp('blob')

try {
  const key = snapshotKey()
  if (key.name !== name) throw new Error(`snapshot name ${name} is not this process's ${key.name}`)
  // The snapshot may only require built-in modules while it is built: esbuild (a native binary
  // behind a small library) is loaded through this shim when the first script compiles.
  writeFileSync(shim, `module.exports = require('node:module').createRequire(${JSON.stringify(SNAPSHOT_ENTRY)})('esbuild')\n`)
  const { build } = (await import('esbuild')) as typeof import('esbuild')
  const result = await build({
    entryPoints: [SNAPSHOT_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    outfile: bundle,
    metafile: true,
    // Minified (local names, whitespace, syntax), function and class names kept (error names and
    // stacks read them): the blob went from 26.3 to 21.6 MB and a checker's start from it, most of
    // which is V8 reading the blob, from 0.465 to 0.41 s (medians of 6, interleaved, round 18).
    minify: true,
    keepNames: true,
    logLevel: 'silent',
    alias: { esbuild: shim },
    // type-checker.ts finds TypeScript's lib files relative to itself.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(path.dirname(SNAPSHOT_ENTRY), '..', `type-checker${path.extname(SNAPSHOT_ENTRY)}`)).href) },
  })
  const inputs: Record<string, string> = {}
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(input)
    if (isOwnSource(file, PACKAGE_ROOT) && file !== shim) inputs[file] = fileSha256(file)
  }
  const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', bundle], { stdio: 'ignore', timeout: 5 * 60_000 })
  if (built.status !== 0) throw new Error(`node --build-snapshot ended with ${built.status ?? built.signal}`)
  const blobName = `${name}.blob`
  renameSync(blob, path.join(folder, blobName))
  const manifest: CheckerSnapshotManifest = { format: SNAPSHOT_FORMAT, node: key.node, arch: key.arch, typescript: key.typescript, blob: blobName, blobBytes: statSync(path.join(folder, blobName)).size, inputs }
  if (!writeCacheFile(folder, `${name}.json`, `${JSON.stringify(manifest)}\n`)) throw new Error('cannot write the manifest')
  pruneSnapshots(folder)
} catch (error) {
  process.exitCode = 1
  process.stderr.write(`ptc checker snapshot: ${error instanceof Error ? error.message : String(error)}\n`)
} finally {
  for (const file of [shim, bundle, blob, path.join(folder, `${name}.building`)]) rmSync(file, { force: true })
}
