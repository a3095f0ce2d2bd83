/**
 * Progress of long work (the takeover seeding, a pass's actions, bench stages): on a terminal one
 * line rewritten in place, `phase done/total (pct%)`; otherwise plain lines at each tenth and at
 * the end, so logs stay short. Written to stderr by the caller's `write`.
 */
export type Progress = (phase: string, done: number, total: number) => void;

export interface ProgressOutput {
  write(text: string): void;
  isTTY: boolean;
}

export function progressReporter(output: ProgressOutput): Progress {
  let lastPhase = '';
  let lastTenth = -1;
  return (phase, done, total) => {
    if (total <= 0) return;
    const percent = Math.floor((100 * done) / total);
    const line = `${phase} ${done}/${total} (${percent}%)`;
    if (phase !== lastPhase) lastTenth = -1;
    lastPhase = phase;
    if (output.isTTY) {
      output.write(`\r\x1b[2K${line}${done >= total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(percent / 10);
    if (tenth === lastTenth && done < total) return;
    lastTenth = tenth;
    output.write(`${line}\n`);
  };
}
