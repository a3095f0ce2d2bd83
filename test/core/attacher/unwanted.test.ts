/** Attachments no VolumeAttachment asks for: reported (metric and log), never detached by us. */
import { describe, expect, it } from 'vitest';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import { unwantedAttachments } from '../../../lambda/core/attacher/unwanted.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { Observations, VolumeObservation } from '../../../lambda/core/types.js';
import { attachment, instanceOf, record, vol } from '../builders.js';
import { kcmVa, view } from './builders.js';

const V = vol(1);
const targetsOf = (volumeAttachments: KubeVolumeAttachment[]) => attacherTargets(view({ volumeAttachments }));
const ec2Shows = (...nodes: string[]): Observations => ({
  volumes: new Map<string, VolumeObservation>([
    [
      V,
      {
        volumeId: V,
        exists: true,
        attachments: nodes.map((n) => ({ instanceId: instanceOf(n), state: 'attached', device: '/dev/xvdaa' })),
      },
    ],
  ]),
});

describe('unwantedAttachments', () => {
  it.each([
    { name: 'a live VolumeAttachment asks for it', vas: [kcmVa('node-a', { claimed: true })], observed: {}, unwanted: [] },
    {
      name: 'one being deleted still asks for it (the detach is ours)',
      vas: [kcmVa('node-a', { deleting: true, claimed: true })],
      observed: {},
      unwanted: [],
    },
    { name: 'none asks, EC2 not asked this pass', vas: [], observed: {}, unwanted: ['node-a'] },
    { name: 'none asks, EC2 shows it', vas: [], observed: ec2Shows('node-a'), unwanted: ['node-a'] },
    { name: 'none asks, EC2 no longer shows it (verification corrects the record)', vas: [], observed: ec2Shows(), unwanted: [] },
    { name: 'the object names another node', vas: [kcmVa('node-b')], observed: {}, unwanted: ['node-a'] },
  ])('$name', ({ vas, observed, unwanted }) => {
    const actual = new Map([[V, record(V, [attachment('node-a')])]]);

    const found = unwantedAttachments(actual, targetsOf(vas), observed);

    expect(found.map((u) => u.nodeName)).toEqual(unwanted);
    if (unwanted.length > 0)
      expect(found[0]).toEqual({ volumeId: V, nodeName: 'node-a', instanceId: instanceOf('node-a'), state: 'attached' });
  });
});
