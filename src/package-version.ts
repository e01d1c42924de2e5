/**
 * The package's name and version, read once from `package.json` (the one place they are written),
 * for the MCP `serverInfo`/`clientInfo` and anything else that reports what is running.
 * The manifest is one folder up from the sources (`src/`) and two from the built package
 * (`dist/src/`): the nearest one up is used.
 */
import { existsSync, readFileSync } from 'node:fs'

const file = ['../package.json', '../../package.json'].map((relative) => new URL(relative, import.meta.url)).find((url) => existsSync(url))
if (!file) throw new Error(`ptc-runner: no package.json above ${import.meta.url}`)
const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string }

/** `ptc-runner`. */
export const PACKAGE_NAME: string = manifest.name
/** The semver of this install, e.g. `0.1.0`. */
export const PACKAGE_VERSION: string = manifest.version
