#!/usr/bin/env node
// The `ptc` command. Plain JavaScript that any Node runs, so an older Node gets a clear answer:
// on Node < 24 it re-runs itself with the repository's bootstrapped Node (`.node24/`, made by
// scripts/setup.sh) when there is one, else prints one line and exits 2. On Node 24 it runs the
// CLI: the TypeScript sources in a checkout (type stripping); in the package, the build points the
// imports below at the bundled CLI, `dist/bundle/` (scripts/bundle-package.ts: fewer modules to load).
// No `--no-node-snapshot`: this process never loads isolated-vm (isolates live in the worker
// process, which gets the flag), so it keeps Node's start-up snapshot and starts faster.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import * as nodeModule from 'node:module'
import { fileURLToPath } from 'node:url'

const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  const bootstrapped = fileURLToPath(new URL(`../.node24/node_modules/node-linux-${process.arch}/bin/node`, import.meta.url))
  if (!existsSync(bootstrapped)) {
    // In a checkout, scripts/setup.sh bootstraps Node 24; the installed package has no such script.
    const checkout = existsSync(fileURLToPath(new URL('../scripts/setup.sh', import.meta.url)))
    process.stderr.write(`ptc: needs Node.js >= 24 (this is ${process.version}); install Node 24 (https://nodejs.org)${checkout ? ', or run bash scripts/setup.sh in the ptc-runner checkout' : ''}.\n`)
    process.exit(2)
  }
  const child = spawn(bootstrapped, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  // A terminal's Ctrl-C reaches the whole process group, the child included.
  process.on('SIGINT', () => {})
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (!signal) process.exitCode = code ?? 1
    else {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    }
  })
} else {
  // Node's compile cache keeps the type-stripped and compiled modules between runs (in the OS
  // temp folder): \`ptc help\` then loads in a fraction of the time type stripping takes.
  nodeModule.enableCompileCache?.()
  if (process.argv[2] === 'run') {
    // `ptc run`'s isolate worker starts before the CLI's modules load, which overlap its start.
    const { prestartRun } = await import('../src/cli/prestart-run.ts')
    prestartRun(process.argv.slice(3))
  }
  const { keepWriteError, main, outputFailure } = await import('../src/cli/main.ts')
  main(process.argv.slice(2)).then(
    (code) => {
      // The command is done and its host disposed: exit once stdout and stderr have taken their
      // last bytes, so a plugin's leftover timer or a tool call that ignored its abort signal (and
      // outlived the host's 2 s wait for it) cannot keep the process alive after the answer.
      // Output that could not be written (a full disk; a closed reader is not counted) fails a
      // command that would have succeeded.
      let open = 2
      const flushed = (error) => {
        keepWriteError(error)
        if (--open > 0) return
        const failure = outputFailure()
        if (failure === undefined || code !== 0) process.exit(code)
        try {
          process.stderr.write(`${failure}\n`, () => process.exit(1))
        } catch {
          process.exit(1)
        }
      }
      process.stdout.write('', flushed)
      process.stderr.write('', flushed)
    },
    (error) => {
      process.stderr.write(`ptc: internal error: ${error?.stack ?? error}\n`)
      process.exitCode = 70
    },
  )
}
