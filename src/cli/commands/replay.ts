/**
 * `ptc replay JOURNAL.jsonl` (S11.3, S11.5): the cards of every call in the journal, on stdout,
 * through the same presenters and formatter as the live run. The host only supplies the tool
 * definitions: nothing runs, no journal is written, MCP servers are not started (their tools have
 * generic cards, which replay gives unknown tools too; a result whose content the journal left to
 * its tool to render is shown without it, and stderr names those tools). Exit 0; 2 when the file
 * cannot be read or is not a journal (it has lines, but none is a journal record).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { defineCommand } from '../command.ts'
import { checkHostFlags, TOOLS_FLAG, WORKSPACE_FLAG, workspaceFrom } from '../host-flags.ts'
import { UsageError } from '../usage-error.ts'

export default defineCommand({
  order: 40,
  summary: 'print the cards of every call in a journal, as the live run printed them',
  usage: 'ptc replay JOURNAL.jsonl [--tools MODULE]... [--workspace DIR]',
  details: `Prints the cards of every call in a journal (ptc run --journal FILE) exactly as the live run
printed them; damaged lines become notes. Pass the run's --tools for their cards.`,
  options: { ...TOOLS_FLAG, ...WORKSPACE_FLAG },
  positionals: { max: 1, missing: 'replay needs a journal file: ptc replay JOURNAL.jsonl' },
  precheck: checkHostFlags,
  async run(values, [file]) {
    const workspace = workspaceFrom(values.workspace)
    let text: string
    try {
      text = readFileSync(resolve(file!), 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read the journal ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    const { countJournalRecords, replayJournal } = await import('../../present/replay.ts')
    const { lines, records } = countJournalRecords(text)
    if (lines > 0 && records === 0) {
      throw new UsageError(
        `${file} is not a ptc journal: none of its ${lines} line${lines === 1 ? '' : 's'} is a journal record. Name a journal file (ptc run --journal FILE writes one; ptc serve and ptc run keep theirs in .ptc/journal/).`,
      )
    }
    const { createHost } = await import('../../host/create-host.ts')
    const host = await createHost({ workspace, toolModules: values.tools ?? [], journal: false, ptc: { prestart: false } })
    try {
      // The journal keeps only the value of a result its tool renders: without the tool, no content.
      const unrendered = new Map<string, number>()
      process.stdout.write(replayJournal(text, (name) => host.ctx.tools.get(name), (name) => unrendered.set(name, (unrendered.get(name) ?? 0) + 1)))
      const missing = [...unrendered].map(([name, count]) => `${name} (${count})`)
      if (missing.length > 0) {
        process.stderr.write(`ptc replay: results shown without their content, since their tool is not loaded: ${missing.join(', ')}. Pass the run's --tools to see it.\n`)
      }
      return 0
    } finally {
      await host.dispose()
    }
  },
})
