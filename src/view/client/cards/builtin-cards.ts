/** The built-in card kinds of S11.1, each in its `card:<kind>` slot. */
import { registerCard } from '../slots.ts'
import { diffCard } from './diff-card.ts'
import { genericCard } from './generic-card.ts'
import { readCard } from './read-card.ts'
import { searchCard } from './search-card.ts'
import { terminalCard } from './terminal-card.ts'
import { webCard } from './web-card.ts'

/** Register the six built-in components. */
export function registerBuiltinCards(): void {
  registerCard('card:generic', genericCard)
  registerCard('card:terminal', terminalCard)
  registerCard('card:diff', diffCard)
  registerCard('card:read', readCard)
  registerCard('card:search', searchCard)
  registerCard('card:web', webCard)
}
