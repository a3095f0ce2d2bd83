import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../lambda/cli/progress.js';

const record = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, progress: progressReporter({ isTTY, write: (text) => written.push(text) }) };
};

describe('progressReporter', () => {
  it('off a terminal: a plain line at each tenth and at the end, whatever the step', () => {
    const { written, progress } = record(false);
    for (let done = 1; done <= 40; done++) progress('seeding', done, 40);
    expect(written).toEqual([
      'seeding 1/40 (2%)\n',
      'seeding 4/40 (10%)\n',
      'seeding 8/40 (20%)\n',
      'seeding 12/40 (30%)\n',
      'seeding 16/40 (40%)\n',
      'seeding 20/40 (50%)\n',
      'seeding 24/40 (60%)\n',
      'seeding 28/40 (70%)\n',
      'seeding 32/40 (80%)\n',
      'seeding 36/40 (90%)\n',
      'seeding 40/40 (100%)\n',
    ]);
  });

  it('on a terminal: one line rewritten in place, ended at the last item', () => {
    const { written, progress } = record(true);
    progress('actions', 1, 2);
    progress('actions', 2, 2);
    expect(written).toEqual(['\r\x1b[2Kactions 1/2 (50%)', '\r\x1b[2Kactions 2/2 (100%)\n']);
  });

  it('a new phase starts its own count; nothing to do prints nothing', () => {
    const { written, progress } = record(false);
    progress('seeding', 0, 0);
    progress('seeding', 1, 1);
    progress('actions', 1, 1);
    expect(written).toEqual(['seeding 1/1 (100%)\n', 'actions 1/1 (100%)\n']);
  });
});
