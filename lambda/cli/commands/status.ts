/**
 * `status`: the persisted actual state as a table; `--watch` refreshes it every interval — redrawn
 * in place on a terminal, one timestamped table (or one JSON line) per refresh otherwise.
 */
import type { Controller } from '../../composition.js';
import { formatStatus, statusRows, type StatusRow } from '../format.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';

interface Snapshot {
  rows: StatusRow[];
  corrupt: { key: string; problem: string }[];
}

async function read(controller: Controller): Promise<Snapshot> {
  const { records, corrupt } = await controller.ports.store.scan();
  return { rows: statusRows(records, controller.clock.now()), corrupt };
}

const settled = (rows: StatusRow[]) => rows.every((r) => r.operation === '-' && r.state === 'attached');

export async function runStatus(controller: Controller, options: { json: boolean }, io: Io): Promise<number> {
  const { rows, corrupt } = await read(controller);
  io.out(options.json ? JSON.stringify({ rows, corrupt }, null, 2) : formatStatus(rows));
  for (const item of corrupt) io.err(`corrupt item ${item.key}: ${item.problem}`);
  return settled(rows) ? EXIT.converged : EXIT.notConverged;
}

/** Clears a terminal and moves the cursor home, so each refresh redraws in place. */
const CLEAR = '\x1b[H\x1b[2J';

function summary(rows: StatusRow[]): string {
  const count = (state: string) => rows.filter((r) => r.state === state).length;
  const busy = rows.filter((r) => r.operation !== '-').length;
  return `${rows.length} attachment(s): ${count('attached')} attached, ${count('attaching')} attaching, ${count('detaching')} detaching, ${count('uncertain')} uncertain; ${busy} operation(s) in flight`;
}

export async function watchStatus(controller: Controller, options: { json: boolean; intervalMs: number }, io: Io): Promise<number> {
  let last: StatusRow[] = [];
  while (!io.signal?.aborted) {
    const { rows } = await read(controller);
    last = rows;
    const at = new Date(controller.clock.now()).toISOString();
    if (options.json) io.out(JSON.stringify({ at, rows }));
    else if (io.isTTY)
      io.out(`${CLEAR}Every ${options.intervalMs / 1000} s · ${at} · ${summary(rows)} (Ctrl-C stops)\n\n${formatStatus(rows)}`);
    else io.out(`--- ${at} · ${summary(rows)}\n${formatStatus(rows)}`);
    await sleepUnlessAborted(controller, options.intervalMs, io.signal);
  }
  return settled(last) ? EXIT.converged : EXIT.notConverged;
}

async function sleepUnlessAborted(controller: Controller, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return controller.clock.sleep(ms);
  if (signal.aborted) return;
  await Promise.race([controller.clock.sleep(ms), new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
}
