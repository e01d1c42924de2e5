/** Defaults of `ptc view` (S11.6), apart so the CLI can name them without loading the server. */

/** Default bind address: loopback. */
export const DEFAULT_VIEW_HOST = '127.0.0.1'
/** Default port (one above `ptc serve`'s 8765). */
export const DEFAULT_VIEW_PORT = 8766
