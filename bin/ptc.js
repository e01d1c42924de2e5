#!/usr/bin/env -S node --no-node-snapshot
// The `ptc` command. Node 24 runs the TypeScript sources directly (type stripping).
import { main } from '../src/cli/main.ts'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error) => {
    process.stderr.write(`ptc: internal error: ${error?.stack ?? error}\n`)
    process.exitCode = 70
  },
)
