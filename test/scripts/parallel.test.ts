/** scripts/parallel.ts: the checks `npm test` runs side by side, each one's output kept whole. */
import { describe, expect, it } from 'vitest';
import { runQuietly, summarize } from '../../scripts/parallel.js';

const node = (name: string, code: string) => runQuietly(name, process.execPath, ['-e', code]);

describe('parallel checks', () => {
  it('keeps each run whole and in the order given, and fails with the first failure', async () => {
    const finished = await Promise.all([
      node('slow', 'setTimeout(() => { console.log("one"); console.error("two"); }, 200)'),
      node('broken', 'console.log("bad"); process.exit(3)'),
      node('quiet', ''),
    ]);
    const { lines, status } = summarize(finished);
    expect(lines.map((line) => line.replace(/ in [\d.]+ s$/, ''))).toEqual([
      '> slow: ok',
      'one\ntwo',
      '> broken: failed (exit 3)',
      'bad',
      '> quiet: ok',
    ]);
    expect(status).toBe(3);
  });

  it('succeeds when every run does', async () => {
    expect(summarize(await Promise.all([node('a', ''), node('b', '')])).status).toBe(0);
  });
});
