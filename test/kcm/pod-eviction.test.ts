/**
 * The simulated kcm on an out-of-service node, in upstream's order: taint eviction deletes the
 * pods that do not tolerate the NoExecute taint (gracefully: they stay Terminating with the kubelet
 * gone); pod GC, every 20 s, marks Failed and force-deletes terminating pods only once the node is
 * also NotReady; then the attach/detach controller deletes the VolumeAttachment without waiting
 * for the unmount.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   stored objects are read as loosely typed JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POD_GC_PERIOD_MS } from '../../sandbox/kcm/pod-eviction.js';
import { genVolume, startKcmWorld, type KcmWorld } from './builders.js';

let world: KcmWorld;
const volume = genVolume(1);
const pod = () =>
  world.kube.get('Pod', 'default', 'db-0') as { metadata: { deletionTimestamp?: string }; status?: { phase?: string } } | undefined;

/** db-0 on node-1, its volume attached and mounted. */
beforeEach(async () => {
  world = await startKcmWorld();
  world.mountedDb(volume, 'node-1');
});
afterEach(() => world.stop());

function tolerate(key: string | undefined, operator: 'Equal' | 'Exists', effect?: string): void {
  world.kube.components.update('Pod', 'default', 'db-0', (p) => ({
    ...p,
    spec: {
      ...(p.spec as object),
      tolerations: [
        { ...(key ? { key } : {}), operator, ...(effect ? { effect } : {}), value: operator === 'Equal' ? 'nodeshutdown' : undefined },
      ],
    },
  }));
}

describe('taint eviction', () => {
  it('deletes a pod of an out-of-service node gracefully at once: it stays Terminating, its volume stays attached', () => {
    world.kube.kubelet.setOutOfService('node-1', true);
    const report = world.kcm.step();
    expect(report.evicted).toEqual(['default/db-0']);
    expect(pod()?.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(world.kcm.step().deleted).toEqual([]);
  });

  it.each([
    ['the exact key and value', 'node.kubernetes.io/out-of-service', 'Equal', 'NoExecute'],
    ['the key with Exists', 'node.kubernetes.io/out-of-service', 'Exists', undefined],
    ['every taint (empty key, Exists)', undefined, 'Exists', undefined],
  ] as const)('leaves a pod that tolerates %s', (_name, key, operator, effect) => {
    tolerate(key, operator, effect);
    world.kube.kubelet.setOutOfService('node-1', true);
    expect(world.kcm.step().evicted).toEqual([]);
  });

  it('evicts a pod whose toleration names another effect', () => {
    tolerate('node.kubernetes.io/out-of-service', 'Exists', 'NoSchedule');
    world.kube.kubelet.setOutOfService('node-1', true);
    expect(world.kcm.step().evicted).toEqual(['default/db-0']);
  });
});

describe('pod GC of terminating pods, then the detach', () => {
  it.each([
    ['Ready and tainted: kept', { ready: true, taint: true }, false],
    ['NotReady, not tainted: kept', { ready: false, taint: false }, false],
    ['NotReady and tainted: Failed and force-deleted', { ready: false, taint: true }, true],
  ])('a terminating pod on a node %s', (_name, node, collected) => {
    world.kube.kubelet.deletePod('default', 'db-0', { graceful: true });
    if (!node.ready) world.kube.kubelet.setReady('node-1', false);
    if (node.taint) world.kube.kubelet.setOutOfService('node-1', true);
    world.clock.advance(POD_GC_PERIOD_MS);
    expect(world.kcm.step().collected).toEqual(collected ? ['default/db-0'] : []);
    expect(pod() === undefined).toBe(collected);
  });

  it('waits for its 20 s period; in the same round the reconciler deletes the VolumeAttachment although the volume is mounted', () => {
    world.kube.kubelet.setOutOfService('node-1', true);
    world.kcm.step(); // evicted
    world.kube.kubelet.setReady('node-1', false);
    world.clock.advance(POD_GC_PERIOD_MS - 1);
    expect(world.kcm.step().collected).toEqual([]);
    world.clock.advance(1);
    expect(world.kcm.step()).toMatchObject({ collected: ['default/db-0'], deleted: [world.vaName(volume, 'node-1')] });
    expect(world.va(volume, 'node-1').metadata.deletionTimestamp).toEqual(expect.any(String));
  });
});
