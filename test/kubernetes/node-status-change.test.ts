import { describe, expect, it } from 'vitest';
import { applyChange, changeFrom, sameVolumes, uniqueByName } from '../../lambda/adapters/kubernetes/node-status.js';
import type { AttachedVolume } from '../../lambda/core/kube.js';

const v = (id: string, device = '/dev/xvdaa'): AttachedVolume => ({ name: `kubernetes.io/csi/ebs.csi.aws.com^${id}`, devicePath: device });

describe('volumesAttached change (applied to the live list on every attempt)', () => {
  it.each([
    ['an added entry is added to what others wrote', [], [v('vol-a')], [v('vol-b')], [v('vol-b'), v('vol-a')]],
    ['a removed entry is removed, others kept', [v('vol-a')], [], [v('vol-a'), v('vol-b')], [v('vol-b')]],
    [
      'a new device path replaces the old one',
      [v('vol-a')],
      [v('vol-a', '/dev/xvdab')],
      [v('vol-a'), v('vol-b')],
      [v('vol-b'), v('vol-a', '/dev/xvdab')],
    ],
    ['removing what someone already removed changes nothing', [v('vol-a')], [], [v('vol-b')], [v('vol-b')]],
    ['without a change the live list stays', [v('vol-a')], [v('vol-a')], [v('vol-c')], [v('vol-c')]],
  ])('%s', (_behaviour, base, wanted, live, expected) => {
    expect(applyChange(live, changeFrom(base, wanted))).toEqual(expected);
  });

  it('compares lists as sets of (name, devicePath)', () => {
    expect(sameVolumes([v('vol-a'), v('vol-b')], [v('vol-b'), v('vol-a')])).toBe(true);
    expect(sameVolumes([v('vol-a')], [v('vol-a', '/dev/xvdab')])).toBe(false);
    expect(sameVolumes([v('vol-a')], [v('vol-a'), v('vol-b')])).toBe(false);
  });

  it('keeps one entry per unique name and refuses two device paths for one name', () => {
    expect(uniqueByName([v('vol-a'), v('vol-a')])).toEqual([v('vol-a')]);
    expect(() => uniqueByName([v('vol-a'), v('vol-a', '/dev/xvdab')])).toThrow(/twice with different device paths/);
  });
});
