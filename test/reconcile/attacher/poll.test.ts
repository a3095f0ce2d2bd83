/** The attacher's targeted pass polls the VolumeAttachments kcm will create, for a bounded time. */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { pollVolumeAttachments } from '../../../lambda/reconcile/attacher/targeted-pass.js';
import type { AttacherDeps } from '../../../lambda/reconcile/attacher/deps.js';

/** A cluster whose VolumeAttachment appears at the `appearsAt`-th read (never when undefined); the sleeps are recorded, and are all the time that passes. */
function polling(appearsAt?: number) {
  let reads = 0;
  let now = 0;
  const pauses: number[] = [];
  const cluster = {
    readVolumeAttachmentFor: (handle: string): Promise<KubeVolumeAttachment | undefined> => {
      if (++reads > 50) throw new Error('polled without end');
      return Promise.resolve(
        appearsAt !== undefined && reads >= appearsAt ? ({ metadata: { name: handle } } as KubeVolumeAttachment) : undefined,
      );
    },
  };
  const sleep = (ms: number) => (pauses.push(ms), (now += ms), Promise.resolve());
  return { deps: { cluster, sleep, clock: () => now } as unknown as AttacherDeps, pauses, reads: () => reads };
}

const expected = [{ handle: 'csi-abc', nodeName: 'node-a' }];

describe('polling for the VolumeAttachments kcm will create', () => {
  it('backs off by half again each time and reads once more at exactly the wait limit, then gives up', async () => {
    const { deps, pauses, reads } = polling();

    expect(await pollVolumeAttachments(deps, expected, 1_000)).toEqual([]);

    expect(pauses).toEqual([200, 300, 450, 50]);
    expect(reads()).toBe(5);
  });

  it('stops as soon as every name is found', async () => {
    const { deps, pauses } = polling(3);

    expect(await pollVolumeAttachments(deps, expected, 1_000)).toEqual([{ metadata: { name: 'csi-abc' } }]);

    expect(pauses).toEqual([200, 300]);
  });

  it('a wait of zero reads once and never sleeps', async () => {
    const { deps, pauses, reads } = polling();

    expect(await pollVolumeAttachments(deps, expected, 0)).toEqual([]);

    expect(pauses).toEqual([]);
    expect(reads()).toBe(1);
  });
});
