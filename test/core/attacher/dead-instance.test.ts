/**
 * Attacher mode's follow-through on a dead instance (core/attacher/dead-instance.ts): which nodes
 * and VolumeAttachments are watched, and what each read of them means — release the old objects
 * kcm is deleting, attach their replacements on other nodes, stop when all are attached elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { deadNodesOf, followUpOf, isDead, watchOf } from '../../../lambda/core/attacher/dead-instance.js';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import { buildNodeViews } from '../../../lambda/core/nodes.js';
import { instanceOf, node, pv, vol } from '../builders.js';
import { csiNode, kcmVa, view } from './builders.js';

const pvs = [pv('pv-data'), pv('pv-logs', { volumeId: vol(2) })];
const nodes = [node('node-a', { outOfService: true }), node('node-b'), node('node-c')];
const targetsOf = (...vas: Parameters<typeof kcmVa>[]) =>
  attacherTargets(
    view({ volumeAttachments: vas.map((v) => kcmVa(...v)), pvs, nodes, csiNodes: ['node-a', 'node-b', 'node-c'].map((n) => csiNode(n)) }),
  );
const watch = watchOf(
  ['node-a'],
  targetsOf(['node-a', { claimed: true }], ['node-a', { pv: 'pv-logs', claimed: true }], ['node-b', { pv: 'pv-other' }]),
);

describe('what is followed', () => {
  it.each([
    ['stopped', true],
    ['terminated', true],
    ['stopping', false],
    ['shutting-down', false],
    ['running', false],
    ['missing', false],
    [undefined, false],
  ] as const)('an instance EC2 reports %s: %s', (state, dead) => {
    expect(isDead(state)).toBe(dead);
  });

  it("the nodes that name the instance and are out of service now; another instance's node is not", () => {
    const views = buildNodeViews([...nodes, node('node-d', { outOfService: true })]).nodes.values();
    expect(deadNodesOf(views, instanceOf('node-a'))).toEqual(['node-a']);
    expect(deadNodesOf(buildNodeViews([node('node-a')]).nodes.values(), instanceOf('node-a'))).toEqual([]);
  });

  it("our objects on those nodes, with their volumes; other nodes' are not watched", () => {
    expect(watch).toEqual({
      nodes: ['node-a'],
      volumeAttachments: new Map([
        ['csi-pv-data-node-a', vol(1)],
        ['csi-pv-logs-node-a', vol(2)],
      ]),
    });
  });
});

describe('what a read means', () => {
  it.each([
    [
      'kcm has not deleted them yet: nothing to do',
      [
        ['node-a', { claimed: true }],
        ['node-a', { pv: 'pv-logs', claimed: true }],
      ],
      [],
      [],
      false,
    ],
    [
      'kcm deletes one: it is released (detached), the other waits',
      [
        ['node-a', { claimed: true, deleting: true }],
        ['node-a', { pv: 'pv-logs', claimed: true }],
      ],
      ['csi-pv-data-node-a'],
      [],
      false,
    ],
    ['one deleting without our finalizer: nothing of ours to release', [['node-a', { deleting: true }]], [], [], false],
    [
      'both gone, one replacement on node-b not attached yet: attach it',
      [['node-b', { claimed: false }]],
      [],
      ['csi-pv-data-node-b'],
      false,
    ],
    [
      'a replacement being deleted is none; an old one still live waits',
      [
        ['node-b', { deleting: true, claimed: true }],
        ['node-a', { pv: 'pv-logs' }],
      ],
      [],
      [],
      false,
    ],
    [
      'both attached elsewhere: done',
      [
        ['node-b', { attached: true }],
        ['node-c', { pv: 'pv-logs', attached: true }],
      ],
      [],
      [],
      true,
    ],
    ['one attached elsewhere, the other not replaced yet: not done', [['node-b', { attached: true }]], [], [], false],
  ] as const)('%s', (_name, vas, release, attach, done) => {
    const next = followUpOf(watch, targetsOf(...(vas as unknown as Parameters<typeof kcmVa>[])));
    expect(next.release.map((v) => v.metadata.name)).toEqual(release);
    expect(next.attach.map((v) => v.metadata.name)).toEqual(attach);
    expect(next.done).toBe(done);
  });
});
