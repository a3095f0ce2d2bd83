/** scripts/faults-until-first.ts: reading the first failing seed out of soak's output. */
import { describe, expect, it } from 'vitest';
import { failingSeeds } from '../../scripts/faults-until-first.js';
import { describeFailure } from '../faults/report.js';

describe('failingSeeds', () => {
  it('names the mode, the seed and the first violation, as soak prints them', () => {
    const output = [
      'seed 50: ok (12 passes, 3 killed)',
      ...describeFailure({
        seed: 61,
        mode: 'attacher',
        theme: 'plain',
        violations: [
          {
            invariant: 'A3',
            step: 'step 4: no change; faults []; passes [full]; then +15s',
            message: 'finalizer of VolumeAttachment csi-1 removed while EC2 has vol-1 attached on i-1',
          },
          { invariant: 'A1', step: 'step 5', message: 'later' },
        ],
      }),
      '61 attacher-mode seed(s) from 1, 1 failed, 80.0 s',
    ].join('\n');
    expect(failingSeeds('attacher', output)).toEqual([
      'attacher seed 61: invariant A3 at step 4: no change; faults []; passes [full]; then +15s: finalizer of VolumeAttachment csi-1 removed while EC2 has vol-1 attached on i-1',
    ]);
  });

  it('finds nothing in a run where every seed passed', () => {
    expect(failingSeeds('controller', 'seed 50: ok (12 passes, 3 killed)\n200 controller-mode seed(s) from 1, 0 failed, 190.0 s')).toEqual(
      [],
    );
  });
});
