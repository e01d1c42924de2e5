/**
 * The package's name and version, read once from `package.json` (the one place they are written),
 * for the MCP `serverInfo`/`clientInfo` and anything else that reports what is running.
 */
import { readFileSync } from 'node:fs'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

/** `ptc-runner`. */
export const PACKAGE_NAME: string = manifest.name
/** The semver of this install, e.g. `0.1.0`. */
export const PACKAGE_VERSION: string = manifest.version
