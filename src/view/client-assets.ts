/**
 * The single-page app of `ptc view`, served from the package (no CDN): `client/main.ts` bundled
 * by esbuild when the viewer starts (once per process), `client/style.css` as written, and the
 * page itself. Viewer plugins (ES modules, TS or JS) are bundled the same way and served at
 * `/plugins/<n>.js`; the app imports each and calls its default export with the card registry
 * (S11.6: client plugins register their own components in keyed slots).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { ViewError } from './view-error.ts'

const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url))

/** The app's files, ready to serve. */
export interface ClientAssets {
  html: string
  js: string
  css: string
  /** Bundled plugins, in the order given; served at `/plugins/<index>.js`. */
  plugins: string[]
}

/**
 * The page. Nothing from a journal is ever in it: the app fetches the records and renders them
 * as text nodes.
 */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ptc view</title>
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<noscript>ptc view needs JavaScript.</noscript>
</body>
</html>
`

let app: Promise<string> | undefined

/**
 * Build (once per process) the app and bundle `plugins` (paths of ES modules).
 * @throws ViewError `view-client-build` when a plugin (or the app) does not build; the message
 *   carries esbuild's first error.
 */
export async function loadClientAssets(plugins: readonly string[] = []): Promise<ClientAssets> {
  app ??= bundle(resolve(CLIENT_DIR, 'main.ts'))
  const [js, ...bundled] = await Promise.all([app, ...plugins.map((plugin) => bundle(resolve(plugin)))])
  return { html: INDEX_HTML, js: js!, css: readFileSync(resolve(CLIENT_DIR, 'style.css'), 'utf8'), plugins: bundled }
}

async function bundle(entry: string): Promise<string> {
  try {
    const result = await build({ entryPoints: [entry], bundle: true, write: false, format: 'esm', target: 'es2022', platform: 'browser', charset: 'utf8', legalComments: 'none', logLevel: 'silent' })
    return result.outputFiles[0]!.text
  } catch (error) {
    const first = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors?.[0]
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : ''
    throw new ViewError('view-client-build', `Could not build ${entry}: ${first?.text ?? (error as Error).message}${where}. A viewer plugin must be an ES module that default-exports a function taking the viewer API.`, { entry })
  }
}
