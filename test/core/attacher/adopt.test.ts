import { describe, expect, it } from 'vitest';
import { volumesToAdopt } from '../../../lambda/core/attacher/adopt.js';
import { attacherDesiredState } from '../../../lambda/core/attacher/desired.js';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import { nodesByInstance } from '../../../lambda/core/verification.js';
import { actualOf, attachment, instanceOf, node, record, vol } from '../builders.js';
import { kcmVa, view } from './builders.js';

const V = vol(1);

describe('volumesToAdopt: which objects EC2 is asked about whether or not a verification is due', () => {
  it.each([
    [
      'an object another attacher reported attached, no record of ours',
      kcmVa('node-a', { attached: true, devicePath: '/dev/xvdba' }),
      actualOf(),
      [V],
    ],
    ['the same, recorded on another node only', kcmVa('node-a', { attached: true }), actualOf(record(V, [attachment('node-b')])), [V]],
    ['the same, recorded on its node', kcmVa('node-a', { attached: true }), actualOf(record(V, [attachment('node-a')])), []],
    ['an object not yet attached (the plan attaches it)', kcmVa('node-a'), actualOf(), []],
    ['a deleting object with the attacher finalizer, no record', kcmVa('node-a', { deleting: true, claimed: true }), actualOf(), [V]],
    [
      'a deleting object with the finalizer, recorded',
      kcmVa('node-a', { deleting: true, claimed: true }),
      actualOf(record(V, [attachment('node-a')])),
      [],
    ],
    ['a deleting object nobody attached (no finalizer)', kcmVa('node-a', { deleting: true }), actualOf(), []],
    ['an object naming no EBS volume', kcmVa('node-a', { attached: true, pv: 'pv-missing' }), actualOf(), []],
  ])('%s → %j', (_name, object, actual, expected) => {
    expect(volumesToAdopt(attacherTargets(view({ volumeAttachments: [object] })), actual)).toEqual(expected);
  });

  it('names each volume once, sorted', () => {
    const objects = [kcmVa('node-b', { attached: true }), kcmVa('node-a', { deleting: true, claimed: true })];
    expect(volumesToAdopt(attacherTargets(view({ volumeAttachments: objects })), actualOf())).toEqual([V]);
  });
});

describe("the instance of a released object whose Node is gone: EC2's answer is matched to that node", () => {
  const released = (parts: Parameters<typeof view>[0]) => {
    const world = view(parts);
    return nodesByInstance(attacherDesiredState(world, attacherTargets(world), { complete: true }));
  };
  const deleting = kcmVa('node-a', { deleting: true, claimed: true });

  it.each([
    ['a deleting object with our finalizer, its Node and CSINode gone', [deleting], [], 'node-a'],
    ['the same object, its Node still there (the Node names its instance)', [deleting], [node('node-a')], 'node-a'],
    ['a live object whose Node is gone (nothing to detach)', [kcmVa('node-a', { attached: true, claimed: true })], [], undefined],
    ['a deleting object nobody attached (no finalizer)', [kcmVa('node-a', { deleting: true })], [], undefined],
  ])('%s → %s', (_name, volumeAttachments, nodes, expected) => {
    expect(released({ volumeAttachments, nodes, csiNodes: [] }).get(instanceOf('node-a'))).toBe(expected);
  });
});
