/**
 * Turns `runtime/` into the script string evaluated in every isolate (SPEC S9.1). The built
 * package ships it prebuilt (`npm run build` writes {@link PREBUILT_RUNTIME_FILE}); from the
 * sources it is built with esbuild (bundle → IIFE) and kept in the user cache folder between
 * processes (`runtime-bundle-cache.ts`), and in memory for the process. The result is the
 * body of a function (for `context.evalClosure`) that returns the runtime's `installRuntime`.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import { userCacheFolder } from '../user-cache.ts'
import { readCachedRuntime, writeCachedRuntime } from './runtime-bundle-cache.ts'

/** The bundled runtime and the files it was built from. */
export interface IsolateRuntimeSource {
  /** Function-body source; evaluating it returns `installRuntime` (see `runtime/bridge-types.ts`). */
  code: string
  /** Absolute paths of the bundled input files (all under `runtime/`). */
  inputs: string[]
}

/** Absolute path of the `runtime/` folder. */
export const RUNTIME_DIR = fileURLToPath(new URL('../../../runtime/', import.meta.url))

/** File name, in `runtime/` of the built package, of the runtime bundled at build time. */
export const PREBUILT_RUNTIME_FILE = 'isolate-runtime.bundle.txt'

const GLOBAL_NAME = '__ptcRuntime'

/**
 * esbuild's options for the runtime bundle, but its entry point. `charset: 'ascii'` escapes the
 * few non-ASCII characters of the runtime's messages (`…`), so V8 keeps the bundle's source as
 * a one-byte string: in the runtime snapshot every isolate starts from, that is 42 KB less to
 * read (issue 12: 536 -> 495 KB, `new ivm.Isolate` 1.83 -> 1.67 ms of CPU, a whole trivial run's
 * isolate 3.12 -> 2.92 ms, interleaved).
 */
const BUNDLE_OPTIONS = {
  bundle: true,
  write: false,
  format: 'iife',
  globalName: GLOBAL_NAME,
  platform: 'neutral',
  target: 'es2024',
  metafile: true,
  legalComments: 'none',
  charset: 'ascii',
  logLevel: 'silent',
} as const

/** Keys a cached bundle to the options it was built with (`runtime-bundle-cache.ts`). */
const BUNDLE_KEY = JSON.stringify(BUNDLE_OPTIONS)
let cached: Promise<IsolateRuntimeSource> | undefined

/**
 * The bundled runtime: the prebuilt bundle when this is the built package, else the cached or
 * a fresh build of the sources; kept for the process either way.
 * @throws Error when the bundle pulls in a file outside `runtime/` (the runtime must be
 *   self-contained) or esbuild fails.
 */
export function loadIsolateRuntimeSource(): Promise<IsolateRuntimeSource> {
  cached ??= (readPrebuilt() ?? readCachedOrBuild()).catch((error: unknown) => {
    cached = undefined
    throw error
  })
  return cached
}

/** From the sources: the bundle a previous process built and cached, else a fresh build, then cached. */
async function readCachedOrBuild(): Promise<IsolateRuntimeSource> {
  const folder = userCacheFolder()
  const hit = folder === undefined ? undefined : readCachedRuntime(folder, RUNTIME_DIR, BUNDLE_KEY)
  if (hit !== undefined) return hit
  const built = await buildIsolateRuntimeSource()
  if (folder !== undefined) writeCachedRuntime(folder, RUNTIME_DIR, BUNDLE_KEY, built)
  return built
}

function readPrebuilt(): Promise<IsolateRuntimeSource> | undefined {
  let code: string
  try {
    code = readFileSync(path.join(RUNTIME_DIR, PREBUILT_RUNTIME_FILE), 'utf8')
  } catch {
    return undefined
  }
  return Promise.resolve({ code, inputs: [] })
}

/**
 * Bundle `runtime/index.ts` with esbuild and check that it is self-contained (the build script
 * calls this to write the prebuilt bundle).
 * @throws Error when the bundle pulls in a file outside `runtime/`, or esbuild fails.
 */
export async function buildIsolateRuntimeSource(): Promise<IsolateRuntimeSource> {
  // esbuild only when building: the built package and a cached bundle never load it.
  const { build } = await import('esbuild')
  const result = await build({ ...BUNDLE_OPTIONS, entryPoints: [path.join(RUNTIME_DIR, 'index.ts')] })
  const cwd = process.cwd()
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(cwd, input))
  const outside = inputs.filter((input) => !input.startsWith(RUNTIME_DIR))
  if (outside.length > 0) {
    throw new Error(`runtime/ must be self-contained, but its bundle includes ${outside.join(', ')}`)
  }
  const bundle = result.outputFiles[0]!.text
  // The directive makes every runtime function strict, so V8's CallSite API cannot hand a
  // script the runtime's functions or receivers through Error.prepareStackTrace.
  return { code: `"use strict";\n${bundle}\nreturn ${GLOBAL_NAME}.installRuntime;`, inputs }
}
