/**
 * The isolate runtime bundled from the sources, kept between processes in the user cache folder
 * (issue 12: the isolate worker ready fast). Bundling takes esbuild's start-up and a build, about
 * a tenth of a second of every worker start in a checkout; the built package ships its bundle
 * prebuilt and never gets here. An entry is keyed by the checkout's `runtime/` folder, the
 * esbuild version and the bundling options (`build`, so a changed option means a fresh build), and holds a fingerprint of every bundled file and of the code
 * (`content-fingerprint.ts`, not SHA-256: `node:crypto` is not loaded on the worker's start path):
 * it is used only while all of them match, so an edited runtime file or a corrupt entry means a
 * fresh build.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { writeCacheFile } from '../user-cache.ts'
import { contentFingerprint } from './content-fingerprint.ts'

/** Bumped when the entry's shape changes, or what `buildIsolateRuntimeSource` wraps around esbuild's output. */
const FORMAT = 3

/**
 * Entries kept in a cache folder, the most recently written: one per checkout (every fresh clone
 * or worktree writes its own, about 43 KB), so without a bound the folder only grew.
 */
export const KEPT_RUNTIME_ENTRIES = 8

/** A bundle and the absolute paths of the files it was built from (as `IsolateRuntimeSource`). */
export interface RuntimeBundle {
  code: string
  inputs: string[]
}

interface Entry {
  format: number
  esbuild: string
  /** The bundling options' key the code was built with (see {@link readCachedRuntime}). */
  build: string
  /** `contentFingerprint` of each input file, by absolute path. */
  inputs: Record<string, string>
  code: string
  codeFingerprint: string
}

function esbuildVersion(): string {
  const manifest = createRequire(import.meta.url).resolve('esbuild/package.json')
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/** The cache entry's file name for the runtime in `runtimeDir`. */
function entryName(runtimeDir: string): string {
  return `runtime-${contentFingerprint(JSON.stringify([FORMAT, runtimeDir])).split('-')[1]}.json`
}

/**
 * The cached bundle of `runtimeDir` in `folder` when it is intact, was built with the options
 * whose key is `build` (any string that changes with them, for example their JSON), and every
 * input file still has the content it was built from; `undefined` otherwise (never throws).
 */
export function readCachedRuntime(folder: string, runtimeDir: string, build: string): RuntimeBundle | undefined {
  try {
    const entry = JSON.parse(readFileSync(`${folder}/${entryName(runtimeDir)}`, 'utf8')) as Partial<Entry>
    if (entry.format !== FORMAT || entry.esbuild !== esbuildVersion() || entry.build !== build || typeof entry.code !== 'string' || contentFingerprint(entry.code) !== entry.codeFingerprint) return undefined
    const inputs = Object.entries(entry.inputs ?? {})
    if (inputs.length === 0 || inputs.some(([file, fingerprint]) => !file.startsWith(runtimeDir) || contentFingerprint(readFileSync(file)) !== fingerprint)) return undefined
    return { code: entry.code, inputs: inputs.map(([file]) => file) }
  } catch {
    return undefined
  }
}

/** Stores `bundle` (just built from `runtimeDir` with the options whose key is `build`) for the next processes; a failure is ignored. */
export function writeCachedRuntime(folder: string, runtimeDir: string, build: string, bundle: RuntimeBundle): void {
  try {
    const inputs = Object.fromEntries(bundle.inputs.map((file) => [file, contentFingerprint(readFileSync(file))]))
    const entry: Entry = { format: FORMAT, esbuild: esbuildVersion(), build, inputs, code: bundle.code, codeFingerprint: contentFingerprint(bundle.code) }
    writeCacheFile(folder, entryName(runtimeDir), JSON.stringify(entry))
    pruneRuntimeEntries(folder)
  } catch {
    // Only a speed-up.
  }
}

/** Removes all but the {@link KEPT_RUNTIME_ENTRIES} most recently written entries in `folder`. Never throws. */
export function pruneRuntimeEntries(folder: string): void {
  try {
    const entries = readdirSync(folder)
      .filter((name) => /^runtime-[0-9a-z]+\.json$/.test(name))
      .map((name) => ({ name, written: statSync(`${folder}/${name}`).mtimeMs }))
      .sort((a, b) => b.written - a.written)
    for (const { name } of entries.slice(KEPT_RUNTIME_ENTRIES)) rmSync(`${folder}/${name}`, { force: true })
  } catch {
    // Only housekeeping.
  }
}
