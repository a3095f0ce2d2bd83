/** The desired state in attacher mode: kcm's VolumeAttachments, read as what must be attached and what is released. */
import { describe, expect, it } from 'vitest';
import { attacherDesiredState } from '../../../lambda/core/attacher/desired.js';
import type { VaTarget } from '../../../lambda/core/attacher/targets.js';
import { instanceOf, node, uname, vol } from '../builders.js';
import { kcmVa } from './builders.js';

const V = vol(1);
const W = vol(2);

function target(name: string, nodeName: string, o: Partial<VaTarget> = {}): VaTarget {
  return {
    name,
    nodeName,
    deleting: false,
    finalized: false,
    volumeId: V,
    pvName: 'pv-data',
    instanceId: instanceOf(nodeName),
    accessModes: ['ReadWriteOnce'],
    va: kcmVa(nodeName),
    ...o,
  };
}

const nodes = { nodes: [node('node-a'), node('node-b')] };
const wanted = (targets: VaTarget[]) => attacherDesiredState(nodes, targets, { complete: true }).attachments;

describe('the attacher-mode desired state', () => {
  it('a live object with its volume and instance known must be attached, named after the object', () => {
    expect(wanted([target('csi-a', 'node-a')])).toEqual([
      {
        volumeId: V,
        uniqueName: uname(V),
        nodeName: 'node-a',
        instanceId: instanceOf('node-a'),
        pods: [],
        accessModes: ['ReadWriteOnce'],
        multiAttach: false,
        source: { kind: 'pv', pvName: 'pv-data' },
        volumeAttachment: 'csi-a',
      },
    ]);
  });

  it('an inline volume is named by its object; a ReadWriteMany one may attach to many nodes', () => {
    const inline = target('csi-b', 'node-b', { pvName: undefined, accessModes: ['ReadWriteMany'] });

    expect(wanted([inline])).toEqual([expect.objectContaining({ source: { kind: 'inline', podVolumeName: 'csi-b' }, multiAttach: true })]);
  });

  it.each<[string, Partial<VaTarget>]>([
    ['one kcm is deleting', { deleting: true }],
    ['one whose volume is unknown', { volumeId: undefined }],
    ['one whose node has no instance yet', { instanceId: undefined }],
    ['an invalid one', { error: 'names no EBS volume' }],
  ])('asks nothing of %s', (_case, o) => {
    expect(wanted([target('csi-a', 'node-a', o)])).toEqual([]);
  });

  it('says why an invalid object is ignored, beside the node problems', () => {
    const state = attacherDesiredState(nodes, [target('csi-a', 'node-a', { error: 'names no EBS volume' })], { complete: true });

    expect(state.problems).toEqual(['VolumeAttachment csi-a: names no EBS volume']);
  });

  it('releases only what kcm is deleting and we finalized (we may have attached it)', () => {
    const state = attacherDesiredState(
      nodes,
      [
        target('csi-a', 'node-a', { deleting: true, finalized: true }),
        target('csi-b', 'node-b', { deleting: true, finalized: false }),
        target('csi-c', 'node-b', { volumeId: W, finalized: true }),
        target('csi-d', 'node-a', { volumeId: undefined, deleting: true, finalized: true }),
      ],
      { complete: true },
    );

    expect(state.decidedBy.kind).toBe('kcm');
    const decidedBy = state.decidedBy as Extract<typeof state.decidedBy, { kind: 'kcm' }>;
    expect([...decidedBy.released]).toEqual([`${V}|node-a`]);
    expect(decidedBy).not.toHaveProperty('releasedInstances');
  });

  it('remembers the instance of a released object whose Node is gone, and only then: nothing else names it', () => {
    const gone = target('csi-a', 'node-gone', { deleting: true, finalized: true, instanceId: 'i-0000000000000gone' });
    const live = target('csi-b', 'node-a', { deleting: true, finalized: true, volumeId: W });
    const unfinalized = target('csi-c', 'node-old', { deleting: true, volumeId: W, instanceId: 'i-00000000000000old' });
    const noInstance = target('csi-d', 'node-older', { deleting: true, finalized: true, volumeId: W, instanceId: undefined });

    const state = attacherDesiredState(nodes, [gone, live, unfinalized, noInstance], { complete: true });

    expect(state.decidedBy).toEqual(expect.objectContaining({ releasedInstances: new Map([['i-0000000000000gone', 'node-gone']]) }));
  });

  it('sorts what must be attached by volume, then node', () => {
    const targets = [target('t1', 'node-b', { volumeId: W }), target('t2', 'node-b'), target('t3', 'node-a')];

    expect(wanted(targets).map((a) => `${a.volumeId} ${a.nodeName}`)).toEqual([`${V} node-a`, `${V} node-b`, `${W} node-b`]);
  });

  it('carries whether every list was read, and the scope of a targeted pass', () => {
    const scope = { volumes: [V], nodes: ['node-a'] };

    expect(attacherDesiredState(nodes, [], { complete: false, scope })).toMatchObject({ complete: false, scope });
    expect(attacherDesiredState(nodes, [], { complete: true })).not.toHaveProperty('scope');
  });
});
