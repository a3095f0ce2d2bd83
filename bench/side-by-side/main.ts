/**
 * `npm run bench -- --side-by-side [--changes 200] [--pods 10] [--rtt 10]`: issue 29's figures in one
 * run, written to results/side-by-side-<time>.md and .json (and results/side-by-side-latest.*).
 * EC2 takes seconds, as it does: 2 s to attach, 3 s to detach; the kubelet takes 1 s to unmount.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { sideBySideMarkdown } from './report.js';
import { measureSideBySide } from './run.js';

const EC2_ATTACH_MS = 2_000;
const EC2_DETACH_MS = 3_000;
const UNMOUNT_MS = 1_000;

export async function runSideBySide(o: { changes: number; pods: number; rttMs: number }): Promise<void> {
  if (!Number.isInteger(o.changes) || o.changes < 1 || !Number.isInteger(o.pods) || o.pods < 1)
    throw new Error(`--changes and --pods must be whole numbers above 0, got ${o.changes} and ${o.pods}`);
  const startedAt = new Date().toISOString();
  const load = loadavg()[0] ?? 0;
  const began = performance.now();
  console.log(`Side by side: ${o.changes} changes per row, a ${o.pods}-pod rolling update, ${o.rttMs} ms added round trip…`);
  const figures = await measureSideBySide({
    ...o,
    attachMs: EC2_ATTACH_MS,
    detachMs: EC2_DETACH_MS,
    unmountMs: UNMOUNT_MS,
    attacher: ['watcher', 'sidecar', 'today'],
    controller: ['watcher', 'today'],
    log: (line) => console.log(`${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s ${line}`),
  });
  const command = `npm run bench -- --side-by-side --changes ${o.changes} --pods ${o.pods} --rtt ${o.rttMs}`;
  const text = sideBySideMarkdown(figures, command, startedAt, load);
  await mkdir('results', { recursive: true });
  const stamp = startedAt.replace(/[:.]/g, '-');
  for (const name of [`side-by-side-${stamp}`, 'side-by-side-latest']) {
    await writeFile(`results/${name}.md`, text);
    await writeFile(`results/${name}.json`, JSON.stringify({ startedAt, load, figures }, null, 2));
  }
  console.log(`\n${text}\nReport: results/side-by-side-${stamp}.md`);
}
