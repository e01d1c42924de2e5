/**
 * `ptc view`: watch runs in a browser (S11.6). Serves the single-page app and the workspace's
 * journals (`.ptc/journal/`) until stopped (SIGINT/SIGTERM), live as `ptc serve` or `ptc run`
 * write them. Loopback by default; another host needs `--token` (or `PTC_VIEW_TOKEN`), like
 * `ptc serve`. Prints `ptc view: listening on URL` on stderr.
 */
import { defineCommand } from '../command.ts'
import { checkHostFlags, positiveInt, WORKSPACE_FLAG, workspaceFrom } from '../host-flags.ts'
import { UsageError } from '../usage-error.ts'
import { DEFAULT_VIEW_HOST, DEFAULT_VIEW_PORT } from '../../view/view-defaults.ts'

export default defineCommand({
  order: 60,
  summary: 'watch runs in a browser: sessions, run timelines with nested calls, live',
  usage: `ptc view [--workspace DIR] [--host ${DEFAULT_VIEW_HOST}] [--port ${DEFAULT_VIEW_PORT}] [--token T] [--plugin MODULE]...`,
  details: `Serves a web page showing the sessions journaled in <workspace>/.ptc/journal/ (newest first), each
run as a timeline (script, nested tool calls with arguments, values and policy outcomes, result,
logs), live while ptc serve or ptc run writes them. --port 0 picks a free port; the URL is printed on
stderr. Any host but loopback needs --token or PTC_VIEW_TOKEN; open the page as URL#token=TOKEN.
--plugin MODULE adds an ES module whose default export registers card components (README).`,
  options: {
    ...WORKSPACE_FLAG,
    host: { type: 'string' },
    port: { type: 'string' },
    token: { type: 'string' },
    plugin: { type: 'string', multiple: true },
  },
  positionals: { max: 0 },
  precheck(values) {
    checkHostFlags(values)
    positiveInt(values.port, 'port', 0, 65_535)
  },
  async run(values) {
    const { startViewer } = await import('../../view/view-server.ts')
    const { ViewError } = await import('../../view/view-error.ts')
    const token = values.token ?? process.env.PTC_VIEW_TOKEN
    let viewer
    try {
      viewer = await startViewer({
        workspace: workspaceFrom(values.workspace),
        ...(values.host !== undefined && { host: values.host }),
        port: positiveInt(values.port, 'port', 0, 65_535) ?? DEFAULT_VIEW_PORT,
        ...(token !== undefined && token !== '' && { token }),
        plugins: values.plugin ?? [],
      })
    } catch (error) {
      if (ViewError.isInstance(error)) throw new UsageError(error.message)
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
        throw new UsageError(`cannot listen on ${values.host ?? DEFAULT_VIEW_HOST}:${values.port ?? DEFAULT_VIEW_PORT} (${code}); pass another --port (0 picks a free one) or --host.`)
      }
      throw error
    }
    process.stderr.write(`ptc view: listening on ${viewer.url}${token ? ' (open it as URL#token=TOKEN)' : ''}\n`)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    })
    await viewer.close()
    return 0
  },
})
