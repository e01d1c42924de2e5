/**
 * The Node.js version ptc-runner needs (`engines: >=24`; isolated-vm 7 is built for Node 24).
 * Imported first by every public entry point, so an older Node gets one sentence instead of
 * whatever the first Node-24-only API does to it. Exports nothing.
 * @throws Error at import on a Node.js older than 24.
 */
const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  throw new Error(`ptc-runner needs Node.js >= 24 (this is v${process.versions.node}); install Node 24 (https://nodejs.org).`)
}
