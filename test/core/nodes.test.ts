import { describe, expect, it } from 'vitest';
import { buildNodeViews, isMounted, sortAttachedVolumes } from '../../lambda/core/nodes.js';
import { instanceOf, node, uname, vol } from './builders.js';

describe('node views', () => {
  it('reads instance, zone, managed, Ready, out-of-service, volumesInUse and volumesAttached', () => {
    const attached = [{ name: uname(vol(2)), devicePath: '/dev/xvdab' }];
    const { nodes, problems } = buildNodeViews([node('node-a', { inUse: [vol(1)], attached, outOfService: true })]);
    expect(problems).toEqual([]);
    expect(nodes.get('node-a')).toEqual({
      name: 'node-a',
      instanceId: instanceOf('node-a'),
      zone: 'us-east-1a',
      managed: true,
      ready: true,
      outOfService: true,
      volumesInUse: [uname(vol(1))],
      volumesAttached: attached,
    });
  });

  it.each([
    ['a node without the controller-managed annotation is unmanaged', node('n', { managed: false }), { managed: false }],
    ['condition Ready=False is not Ready', node('n', { ready: false }), { ready: false }],
    [
      'an Unknown Ready condition is not Ready',
      { ...node('n'), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
      { ready: false },
    ],
    [
      'a node without conditions is not Ready',
      { metadata: { name: 'n' } },
      { ready: false, managed: false, volumesInUse: [], volumesAttached: [] },
    ],
    [
      'any out-of-service taint counts, whatever its effect',
      { ...node('n'), spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoSchedule' }] } },
      { outOfService: true },
    ],
    [
      'other taints do not',
      { ...node('n'), spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] } },
      { outOfService: false },
    ],
  ])('%s', (_name, object, expected) => {
    expect(buildNodeViews([object]).nodes.get('n')).toMatchObject(expected);
  });

  it('keeps a node with a malformed providerID, without an instance, and says why', () => {
    const { nodes, problems } = buildNodeViews([node('n', { providerID: 'aws:///zone/bogus' })]);
    expect(nodes.get('n')?.instanceId).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/^node n: malformed spec.providerID "aws:\/\/\/zone\/bogus"/)]);
  });

  it('reports nameless and duplicate node objects as problems', () => {
    const { nodes, problems } = buildNodeViews([{ metadata: {} }, node('n'), node('n', { ready: false })]);
    expect(nodes.get('n')?.ready).toBe(true);
    expect(problems).toEqual(['a node object has no metadata.name', 'node n is listed twice; the first is used']);
  });
});

describe('sortAttachedVolumes', () => {
  it('orders by name, then device path', () => {
    const list = [
      { name: 'b', devicePath: '/dev/xvdaa' },
      { name: 'a', devicePath: '/dev/xvdab' },
      { name: 'a', devicePath: '/dev/xvdaa' },
    ];
    expect(sortAttachedVolumes(list)).toEqual([list[2], list[1], list[0]]);
  });
});

describe('isMounted', () => {
  it('is true only when the unique name is in volumesInUse', () => {
    expect(isMounted([uname(vol(1))], uname(vol(1)))).toBe(true);
    expect(isMounted([uname(vol(1))], uname(vol(2)))).toBe(false);
    expect(isMounted([], uname(vol(1)))).toBe(false);
  });
});
