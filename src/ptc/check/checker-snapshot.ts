/**
 * The checker's start-up snapshot, on the host's side (issue 12: "the checker's cold start cut by
 * a persisted build or a snapshot"). A cold checker spends most of its start-up loading
 * TypeScript and parsing and binding the ES lib files; a V8 start-up snapshot taken after that
 * (`checker-snapshot-entry.ts`) lets a checker process begin warm. Snapshots live in the user
 * cache folder (`user-cache.ts`), one per Node version, architecture, TypeScript version and
 * checkout, described by a manifest that lists the SHA-256 of every source file bundled into it:
 * a snapshot whose sources changed, whose blob is missing or has another size, or whose manifest
 * does not parse is not used, and a fresh one is built in the background (a detached, niced
 * `checker-snapshot-build.ts`). A blob that fails to start a checker is discarded by the pool.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs'
import { createRequire } from 'node:module'
import { getPriority, setPriority } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { userCacheFolder } from '../user-cache.ts'

/** Bumped when the manifest's shape, the snapshot's program contract or how it is built changes (2: minified). */
export const SNAPSHOT_FORMAT = 2
/** A build that has not finished after this long is taken to have died; another may start. */
const STALE_BUILD_MS = 10 * 60_000
/** Snapshots kept in the cache folder, most recently used first (about 25 MB each). */
export const KEPT_SNAPSHOTS = 4
const HERE = path.dirname(fileURLToPath(import.meta.url))
/** `.ts` from the sources, `.js` in the built package. */
const EXTENSION = path.extname(fileURLToPath(import.meta.url))

/** The manifest written next to a snapshot blob (`<name>.json`). */
export interface CheckerSnapshotManifest {
  format: number
  node: string
  arch: string
  typescript: string
  /** The blob's file name in the cache folder and its size in bytes. */
  blob: string
  blobBytes: number
  /** SHA-256 (hex) of every bundled file of this package's own ({@link isOwnSource}), by absolute path. */
  inputs: Record<string, string>
}

/** What a snapshot is keyed by: a different Node, architecture, TypeScript or checkout gets its own. */
export function snapshotKey(): { name: string; node: string; arch: string; typescript: string } {
  const typescript = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('typescript/package.json'), 'utf8')) as { version: string }).version
  const identity = JSON.stringify([SNAPSHOT_FORMAT, process.version, process.arch, typescript, HERE])
  return { name: `checker-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`, node: process.version, arch: process.arch, typescript }
}

/** This package's folder: the nearest one up from this file that holds a `package.json`. */
export const PACKAGE_ROOT: string = (() => {
  for (let folder = HERE; ; folder = path.dirname(folder)) {
    try {
      if (statSync(path.join(folder, 'package.json')).isFile()) return folder
    } catch {
      // Not here: one up.
    }
    if (path.dirname(folder) === folder) return HERE
  }
})()

/**
 * Whether the absolute path `file` is one of this package's own files, which a manifest hashes:
 * inside `root` ({@link PACKAGE_ROOT}) and not in a `node_modules` folder below it. An installed
 * package itself lives in a `node_modules` folder, so only the part of the path below `root`
 * counts; its dependencies are keyed by version instead (TypeScript) or not at all.
 */
export function isOwnSource(file: string, root: string): boolean {
  const relative = path.relative(root, file)
  return relative !== '' && !relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative) && !relative.split(path.sep).includes('node_modules')
}

/** SHA-256 (hex) of a file's bytes. */
export function fileSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex')
}

/** Path of the module a snapshot is built from, and of the build program. */
export const SNAPSHOT_ENTRY = path.join(HERE, `checker-snapshot-entry${EXTENSION}`)
const BUILD_PROGRAM = path.join(HERE, `checker-snapshot-build${EXTENSION}`)

/**
 * The blob in `folder` that matches this process and the current sources, or `undefined`.
 * Never throws: anything unreadable, foreign or out of date counts as no snapshot.
 */
export function verifiedSnapshot(folder: string): string | undefined {
  try {
    const key = snapshotKey()
    const manifest = JSON.parse(readFileSync(path.join(folder, `${key.name}.json`), 'utf8')) as Partial<CheckerSnapshotManifest>
    if (manifest.format !== SNAPSHOT_FORMAT || manifest.node !== key.node || manifest.arch !== key.arch || manifest.typescript !== key.typescript) return undefined
    if (typeof manifest.blob !== 'string' || manifest.blob !== path.basename(manifest.blob) || typeof manifest.inputs !== 'object' || manifest.inputs === null) return undefined
    const inputs = Object.entries(manifest.inputs)
    if (inputs.length === 0 || inputs.some(([file, sha]) => fileSha256(file) !== sha)) return undefined
    const blob = path.join(folder, manifest.blob)
    const stat = lstatSync(blob)
    if (!stat.isFile() || stat.size !== manifest.blobBytes || (process.getuid !== undefined && stat.uid !== process.getuid())) return undefined
    return blob
  } catch {
    return undefined
  }
}

/** Cache folders this process started a build in, used a snapshot of, or discarded one of. */
const buildStarted = new Set<string>()
const touched = new Set<string>()
const discarded = new Set<string>()

/**
 * A blob to start a checker process from, or `undefined` (start from the module entry). When
 * there is none, starts building one in the background, at most once per process per cache
 * folder and once per cache folder at a time, so the next processes start warm.
 */
export function findCheckerSnapshot(): string | undefined {
  const folder = userCacheFolder()
  if (folder === undefined || discarded.has(folder)) return undefined
  const blob = verifiedSnapshot(folder)
  if (blob === undefined && !buildStarted.has(folder)) {
    buildStarted.add(folder)
    startBuild(folder)
  }
  if (blob !== undefined && !touched.has(folder)) {
    touched.add(folder) // Once per process and folder: marks the snapshot used, for pruneSnapshots.
    try {
      const now = new Date()
      utimesSync(path.join(folder, `${snapshotKey().name}.json`), now, now)
    } catch {
      // Only an eviction hint.
    }
  }
  return blob
}

/** A checker could not start from `blob`: never use its cache folder's snapshot again in this process, and let the next one rebuild it. */
export function discardCheckerSnapshot(blob: string): void {
  discarded.add(path.dirname(blob))
  rmSync(path.join(path.dirname(blob), `${snapshotKey().name}.json`), { force: true })
  rmSync(blob, { force: true })
}

/**
 * Keeps the {@link KEPT_SNAPSHOTS} most recently used snapshots in `folder` (by their manifest's
 * modification time, refreshed on use) and removes the others, and blobs left without a
 * manifest for longer than a build may take. Every checkout and installed copy gets its own
 * snapshot, so without this the folder would only grow. Never throws.
 */
export function pruneSnapshots(folder: string): void {
  try {
    const names = readdirSync(folder)
    const manifests = names
      .filter((name) => /^checker-[0-9a-f]{16}\.json$/.test(name))
      .map((name) => ({ name: name.slice(0, -'.json'.length), used: statSync(path.join(folder, name)).mtimeMs }))
      .sort((a, b) => b.used - a.used)
    for (const { name } of manifests.slice(KEPT_SNAPSHOTS)) {
      rmSync(path.join(folder, `${name}.json`), { force: true })
      rmSync(path.join(folder, `${name}.blob`), { force: true })
    }
    const kept = new Set(manifests.slice(0, KEPT_SNAPSHOTS).map(({ name }) => name))
    for (const name of names) {
      const match = /^(checker-[0-9a-f]{16})\.blob$/.exec(name)
      if (!match || kept.has(match[1]!)) continue
      const blob = path.join(folder, name)
      if (Date.now() - (statSync(blob, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_BUILD_MS) rmSync(blob, { force: true })
    }
  } catch {
    // Only housekeeping.
  }
}

function startBuild(folder: string): void {
  const { name } = snapshotKey()
  const lock = path.join(folder, `${name}.building`)
  try {
    if (Date.now() - statSync(lock).mtimeMs < STALE_BUILD_MS) return
    rmSync(lock, { force: true })
  } catch {
    // No build under way.
  }
  try {
    closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600))
  } catch {
    return // Another process just started one.
  }
  try {
    const child = spawn(process.execPath, [BUILD_PROGRAM, folder, name], { detached: true, stdio: 'ignore', env: process.env })
    child.on('error', () => rmSync(lock, { force: true }))
    if (child.pid !== undefined) setPriority(child.pid, Math.min(19, getPriority(child.pid) + 10))
    child.unref()
  } catch {
    rmSync(lock, { force: true })
  }
}
