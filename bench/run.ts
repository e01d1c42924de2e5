/**
 * `npm run bench` (= `node bench/run.ts [section-filter]`): runs every bench section in order and
 * prints one table per section. Add a section by exporting it from a `*.bench.ts` file made with
 * `section()` from `./harness.ts` and listing it below.
 */
import { runSection, type Section } from './harness.ts'
import { pipeline } from './pipeline.bench.ts'
import { ptc } from './ptc.bench.ts'
import { isolation } from './isolate.bench.ts'
import { cli } from './cli.bench.ts'
import { declarations } from './declarations.bench.ts'
import { attack } from './attack.bench.ts'
import { searchAttack } from './search-attack.bench.ts'
import { callPath } from './call-path.bench.ts'
import { startup } from './startup.bench.ts'
import { memory } from './memory.bench.ts'
import { stdioLines } from './stdio-lines.bench.ts'
import { typegenDepth } from './typegen-depth.bench.ts'

const sections: Section[] = [pipeline, ptc, isolation, callPath, cli, startup, memory, declarations, attack, searchAttack, stdioLines, typegenDepth]

const filter = process.argv[2]
console.log(`ptc-runner bench — node ${process.version}, ${process.platform}/${process.arch}\n`)
for (const entry of sections) {
  if (filter && !entry.name.includes(filter)) continue
  await runSection(entry)
}
