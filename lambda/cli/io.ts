/** Where a command writes: `out` is the result alone (stdout), `err` everything else (stderr). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal: tables may be redrawn in place. */
  isTTY?: boolean;
  /** stderr is a terminal: progress may be redrawn in place. */
  errIsTTY?: boolean;
  /** Raw writes to stderr (progress lines without a newline). */
  errWrite?(text: string): void;
  /** Aborted by Ctrl-C: `status --watch` stops. */
  signal?: AbortSignal;
}
