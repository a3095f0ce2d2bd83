/**
 * Shadow mode (issue #12): each VolumeAttachment the sidecar handles, beside EC2's truth on the VA
 * node's instance and our planned action, lands in exactly one verdict of a closed set.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../lambda/core/actions.js';
import { compareWithSidecar, disagreements, SHADOW_VERDICTS, type ShadowInputs } from '../../../lambda/core/attacher/shadow.js';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { Ec2AttachmentState, VolumeObservation } from '../../../lambda/core/types.js';
import { instanceOf, pv, vol } from '../builders.js';
import { csiNode, kcmVa, view } from './builders.js';

const V = vol(1);
const A = instanceOf('node-a');
const B = instanceOf('node-b');

type Ec2 = Ec2AttachmentState | 'none' | 'gone' | 'not asked' | { on: string; state: Ec2AttachmentState };

function observation(ec2: Exclude<Ec2, 'not asked'>): VolumeObservation {
  if (ec2 === 'gone') return { volumeId: V, exists: false, attachments: [] };
  if (ec2 === 'none') return { volumeId: V, exists: true, attachments: [] };
  const { on, state } = typeof ec2 === 'string' ? { on: A, state: ec2 } : ec2;
  return { volumeId: V, exists: true, attachments: [{ instanceId: on, state, device: '/dev/xvdaa' }] };
}

interface Scene {
  va?: KubeVolumeAttachment;
  csiNodes?: ReturnType<typeof csiNode>[];
  ec2: Ec2;
  planned?: Action['kind'];
  heldBack?: boolean;
}

function inputs(scene: Scene): ShadowInputs {
  const parts = { volumeAttachments: scene.va === undefined ? [] : [scene.va], ...(scene.csiNodes ? { csiNodes: scene.csiNodes } : {}) };
  const action = { volumeId: V, nodeName: 'node-a', instanceId: A, reason: 'r' } as unknown as Action;
  return {
    targets: attacherTargets(view(parts)),
    observations: scene.ec2 === 'not asked' ? {} : { volumes: new Map([[V, observation(scene.ec2)]]) },
    actions: scene.planned === undefined ? [] : [{ ...action, kind: scene.planned } as Action],
    heldBack: scene.heldBack ? [{ action: { ...action, kind: 'detach' }, reason: 'guard' } as never] : [],
    nodeOfInstance: new Map([
      [A, 'node-a'],
      [B, 'node-b'],
    ]),
  };
}

const withStatus = (va: KubeVolumeAttachment, status: KubeVolumeAttachment['status']): KubeVolumeAttachment => ({ ...va, status });
const reported = kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdaa' });
const fresh = kcmVa('node-a');
const deleting = withStatus(kcmVa('node-a', { claimed: true, deleting: true }), { attached: true });

describe('compareWithSidecar: one verdict per VolumeAttachment', () => {
  it.each<[string, Scene, string, string]>([
    ['the VA says attached and EC2 shows it on its instance', { va: reported, ec2: 'attached' }, 'agrees', 'attached'],
    ['the VA says attached and EC2 shows nothing', { va: reported, ec2: 'none' }, 'va-attached-ec2-not', 'detached'],
    ['the VA says attached, the volume is gone', { va: reported, ec2: 'gone' }, 'va-attached-ec2-not', 'volume gone'],
    [
      'the VA says attached, EC2 has it on another instance',
      { va: reported, ec2: { on: B, state: 'attached' } },
      'va-attached-ec2-not',
      `elsewhere ${B}`,
    ],
    ['the VA says attached, EC2 is detaching it', { va: reported, ec2: 'detaching' }, 'agrees', 'detaching'],
    ['a new VA the sidecar has not attached, we would', { va: fresh, ec2: 'none', planned: 'attach' }, 'attach-pending', 'detached'],
    ['EC2 attached it, the VA does not say so yet', { va: fresh, ec2: 'attached' }, 'attach-pending', 'attached'],
    [
      'the sidecar wrote attachError',
      { va: kcmVa('node-a', { attachError: 'AttachmentLimitExceeded' }), ec2: 'none' },
      'sidecar-error',
      'detached',
    ],
    ['kcm deletes it, EC2 still shows it', { va: deleting, ec2: 'attached', planned: 'detach' }, 'detach-pending', 'attached'],
    ['kcm deletes it and EC2 shows nothing', { va: deleting, ec2: 'none' }, 'agrees', 'detached'],
    [
      'kcm deletes it and the sidecar wrote detachError',
      { va: withStatus(deleting, { attached: true, detachError: {} }), ec2: 'attached' },
      'sidecar-error',
      'attached',
    ],
    ['agreed, yet we would detach it', { va: reported, ec2: 'attached', planned: 'detach' }, 'plan-differs', 'attached'],
    ['agreed, yet our detach is held back', { va: reported, ec2: 'attached', heldBack: true }, 'plan-differs', 'attached'],
    [
      'its node has no EBS driver registered',
      { va: reported, csiNodes: [csiNode('node-a', null)], ec2: 'attached' },
      'unresolvable',
      `on ${A}`,
    ],
    ['EC2 was not asked', { va: reported, ec2: 'not asked' }, 'unverified', 'not asked'],
  ])('%s: %s', (_, scene, verdict, ec2) => {
    const [row] = compareWithSidecar(inputs(scene)).rows;
    expect(row).toMatchObject({ volumeAttachment: reported.metadata.name, volumeId: V, nodeName: 'node-a', verdict, ec2 });
  });

  it('a VA naming no EBS volume is unresolvable and asks EC2 nothing', () => {
    const va = kcmVa('node-a', { pv: 'pv-nfs' });
    const targets = attacherTargets(view({ volumeAttachments: [va], pvs: [pv('pv-nfs', { source: 'nfs' })] }));
    const [row] = compareWithSidecar({ ...inputs({ ec2: 'attached' }), targets }).rows;
    expect(row).toMatchObject({ verdict: 'unresolvable', ec2: 'not asked', planned: 'none' });
    expect(row?.volumeId).toBeUndefined();
  });

  it.each([
    ['a live VA', fresh, 'not attached'],
    ['a deleting VA', withStatus(deleting, { attached: false }), 'deleting, not attached'],
    ['an attach error', kcmVa('node-a', { attachError: 'AttachmentLimitExceeded' }), 'attach error: AttachmentLimitExceeded'],
    ['a detach error without message', withStatus(deleting, { attached: true, detachError: {} }), 'detach error: (no message)'],
  ])("the sidecar's report on %s", (_, va, sidecar) => {
    expect(compareWithSidecar(inputs({ va, ec2: 'none' })).rows[0]?.sidecar).toBe(sidecar);
  });

  it("shows the sidecar's marks: its report, finalizer and node-id annotation", () => {
    const [row] = compareWithSidecar(inputs({ va: reported, ec2: 'attached' })).rows;
    expect(row).toMatchObject({ sidecar: 'attached', finalizer: true, nodeIdAnnotation: A, instanceId: A, planned: 'none' });
    expect(row?.detail).toBeUndefined();
    const [unmarked] = compareWithSidecar(inputs({ va: fresh, ec2: 'none' })).rows;
    expect(unmarked).toMatchObject({ sidecar: 'not attached', finalizer: false });
    expect(unmarked?.nodeIdAnnotation).toBeUndefined();
  });
});

describe('attachments EC2 shows that no VolumeAttachment names', () => {
  it.each<[string, Ec2, object | undefined]>([
    ['on a node no VA names', { on: B, state: 'attached' }, { nodeName: 'node-b', instanceId: B, verdict: 'ec2-attached-unrequested' }],
    ['on an instance behind no node', { on: 'i-0000000000000dead', state: 'attached' }, { instanceId: 'i-0000000000000dead' }],
    ['detached: nothing to say', { on: B, state: 'detached' }, undefined],
    ['the volume is gone: nothing to say', 'gone', undefined],
  ])('%s', (_, ec2, expected) => {
    const rows = compareWithSidecar(inputs({ ec2 })).rows;
    expect(rows).toEqual(expected === undefined ? [] : [expect.objectContaining({ volumeId: V, sidecar: 'no VA', ...expected })]);
  });

  it.each<[string, Scene]>([
    ['a deleting VA', { va: deleting, ec2: 'attached' }],
    ['an unresolvable VA on that node', { va: reported, csiNodes: [csiNode('node-a', null)], ec2: 'attached' }],
  ])('an attachment %s names is not reported twice', (_, scene) => {
    expect(compareWithSidecar(inputs(scene)).rows).toHaveLength(1);
  });
});

describe('counts and disagreements', () => {
  it('counts every verdict of the closed set, zeros included', () => {
    const { counts } = compareWithSidecar(inputs({ va: reported, ec2: { on: B, state: 'attached' } }));
    expect(Object.keys(counts)).toEqual([...SHADOW_VERDICTS]);
    expect(counts).toMatchObject({ 'va-attached-ec2-not': 1, 'ec2-attached-unrequested': 1, agrees: 0 });
  });

  it('disagreements are every row but agrees, each saying why', () => {
    const comparison = compareWithSidecar(inputs({ va: reported, ec2: { on: B, state: 'attached' } }));
    const rows = disagreements(comparison);
    expect(rows.map((r) => r.verdict).sort()).toEqual(['ec2-attached-unrequested', 'va-attached-ec2-not']);
    expect(rows.every((r) => (r.detail ?? '') !== '')).toBe(true);
    expect(disagreements(compareWithSidecar(inputs({ va: reported, ec2: 'attached' })))).toEqual([]);
  });
});

describe("the sidecar's Lease, which the fence will hold", () => {
  const where = 'kube-system/external-attacher-leader-ebs-csi-aws-com';
  const first = (sidecarLease: ShadowInputs['sidecarLease']) =>
    compareWithSidecar({ ...inputs({ va: reported, ec2: 'attached' }), ...(sidecarLease ? { sidecarLease } : {}) }).rows[0];

  it.each<[string, ShadowInputs['sidecarLease'], string | undefined]>([
    ['found: nothing to say', { where, found: true, holder: 'ebs-csi-controller-0' }, undefined],
    ['not checked (the sidecar is gone): nothing to say', undefined, undefined],
    [
      'missing: a first row naming where it was looked for',
      { where, found: false },
      `no Lease ${where}: the sidecar runs in another namespace`,
    ],
    [
      'unreadable: a first row with the error and the RBAC that grants it',
      { where, error: 'Forbidden' },
      `cannot read the Lease ${where}: Forbidden`,
    ],
  ])('%s', (_, sidecarLease, detail) => {
    const row = first(sidecarLease);
    if (detail === undefined) expect(row?.verdict).toBe('agrees');
    else
      expect(row).toMatchObject({ verdict: 'no-sidecar-lease', sidecar: 'no Lease', detail: expect.stringContaining(detail) as unknown });
  });
});
