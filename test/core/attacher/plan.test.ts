/**
 * The plan on an attacher-mode desired state: kcm's live objects are attached, the ones it is
 * deleting (with our finalizer) are detached at once and never unreported, and attachments no
 * object asks for are left alone.
 */
import { describe, expect, it } from 'vitest';
import { attacherDesiredState } from '../../../lambda/core/attacher/desired.js';
import { expectedAttachments } from '../../../lambda/core/attacher/expected.js';
import { attacherTargets, type AttacherView } from '../../../lambda/core/attacher/targets.js';
import { plan } from '../../../lambda/core/plan.js';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import { actualOf, attachment, config, instanceOf, pod, pv, pvc, record, T0, vol } from '../builders.js';
import { kcmVa, view } from './builders.js';

const V = vol(1);
const planOf = (world: AttacherView, records: VolumeRecord[], complete = true) => {
  const desired = attacherDesiredState(world, attacherTargets(world), { complete });
  return plan(desired, actualOf(...records), {}, T0, config({ massDetachGuard: { maxFraction: 0.1, minAttached: 0 } }));
};
const kinds = (p: ReturnType<typeof planOf>) => p.actions.map((a) => `${a.kind} ${a.nodeName}`);

describe('plan in attacher mode', () => {
  it.each([
    ['a live object with nothing attached: attach', view(), [], ['attach node-a']],
    ['a live object already attached: nothing', view(), [record(V, [attachment('node-a', { reported: false })])], []],
    [
      'kcm deleting it (our finalizer): detach at once, no unreport, past the mass-detach guard',
      view({ volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true })] }),
      [record(V, [attachment('node-a', { mounted: true })])],
      ['detach node-a'],
    ],
    [
      'kcm deleting it, no finalizer of ours: nothing (already detached)',
      view({ volumeAttachments: [kcmVa('node-a', { deleting: true })] }),
      [record(V, [attachment('node-a')])],
      [],
    ],
    ['attached where no object asks: left alone', view({ volumeAttachments: [] }), [record(V, [attachment('node-b')])], []],
    [
      'moved: detach from the deleted node before attaching to the new one',
      view({ volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true }), kcmVa('node-b')] }),
      [record(V, [attachment('node-a')])],
      ['detach node-a', 'multiAttachConflict node-b'],
    ],
  ])('%s', (_, world, records, expected) => expect(kinds(planOf(world, records))).toEqual(expected));

  it('waits with code not-released on what no object asks for', () => {
    expect(planOf(view({ volumeAttachments: [] }), [record(V, [attachment('node-b')])]).deferred).toEqual([
      expect.objectContaining({ nodeName: 'node-b', code: 'not-released' }),
    ]);
  });

  it('detaches nothing on an incomplete read, even what kcm released', () => {
    const world = view({ volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true })] });
    expect(kinds(planOf(world, [record(V, [attachment('node-a')])], false))).toEqual([]);
  });

  it('builds each desired attachment from its object: instance from the CSINode, no pods, the object named', () => {
    const world = view();
    expect(attacherDesiredState(world, attacherTargets(world), { complete: true }).attachments).toEqual([
      expect.objectContaining({
        volumeId: V,
        nodeName: 'node-a',
        instanceId: instanceOf('node-a'),
        pods: [],
        multiAttach: false,
        volumeAttachment: 'csi-pv-data-node-a',
      }),
    ]);
  });
});

describe("expectedAttachments: the objects a scheduled pod's node will wait on", () => {
  it.each([
    ['a bound CSI claim', pod('web', { claims: ['data'] }), [pv('pv-data', { volumeId: V })], [{ handle: V, nodeName: 'node-a' }]],
    [
      'an in-tree PV: the translated id',
      pod('web', { claims: ['data'] }),
      [pv('pv-data', { source: 'in-tree', volumeId: `aws://us-east-1a/${V}` })],
      [{ handle: V, nodeName: 'node-a' }],
    ],
    ['a claim of another driver', pod('web', { claims: ['data'] }), [pv('pv-data', { source: 'other-csi' })], []],
    ['an unbound claim', pod('web', { claims: ['data'] }), [], []],
    ['an inline in-tree volume', pod('web', { inline: [{ name: 'scratch', volumeID: V }] }), [], [{ handle: V, nodeName: 'node-a' }]],
    ['an unscheduled pod', pod('web', { claims: ['data'], node: null }), [pv('pv-data', { volumeId: V })], []],
  ])('%s', (_, p, pvs, expected) => expect(expectedAttachments(p, [pvc('data')], pvs)).toEqual(expected));
});
