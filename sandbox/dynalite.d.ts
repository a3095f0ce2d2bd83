// dynalite ships no types; this is the slice of its API the sandbox uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Milliseconds tables stay CREATING / DELETING / UPDATING (default 500 each). */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    /** LevelDB directory; in-memory when absent. */
    path?: string;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
