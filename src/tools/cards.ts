/**
 * UI cards (SPEC S11.1): a card-tagged render intent, a discriminated union on `card` that a UI
 * bridge dispatches on, separate from model content (S11.4). `read`, `search` and `web` exist only
 * in the completed phase; their pending form is the generic card (S11.2).
 */

/** A file a call touched, so an editor can follow it. `line` is 1-based. */
export interface CardLocation {
  path: string
  line?: number
}

/** Default card, both phases; `kind` picks an icon, `locations` lists files touched. */
export interface GenericCard {
  card: 'generic'
  phase: 'pending' | 'completed'
  title: string
  kind?: string
  locations?: CardLocation[]
  /** Short text body (completed phase), e.g. the first lines of the content. */
  body?: string
  isError?: boolean
}

/** A shell command; the completed phase carries raw output, exit code and signal. */
export interface TerminalCard {
  card: 'terminal'
  phase: 'pending' | 'completed'
  command: string
  cwd?: string
  output?: string
  exitCode?: number | null
  signal?: string | null
  background?: boolean
}

/**
 * Inline diff of a created or modified file (fs write/edit). `diff` is a unified diff; a pending
 * card's hunk headers read `@@ proposed @@`, without line numbers (built from the arguments
 * alone, S11.3, it cannot know where the change lands).
 */
export interface DiffCard {
  card: 'diff'
  phase: 'pending' | 'completed'
  path: string
  diff?: string
  created?: boolean
}

/** Numbered lines of a file; completed only. `startLine` is 1-based. */
export interface ReadCard {
  card: 'read'
  phase: 'completed'
  path: string
  startLine: number
  lines: string[]
  language?: string
}

/** Discovery results grouped by file, or a flat path list; completed only. */
export interface SearchCard {
  card: 'search'
  phase: 'completed'
  query: string
  groups?: { path: string; matches: { line: number; text: string }[] }[]
  paths?: string[]
}

/** Web retrieval; completed only. */
export interface WebCard {
  card: 'web'
  phase: 'completed'
  kind: 'search' | 'fetch'
  url?: string
  query?: string
  title?: string
}

/** The card union (S11.1). */
export type Card = GenericCard | TerminalCard | DiffCard | ReadCard | SearchCard | WebCard
