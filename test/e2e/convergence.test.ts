/**
 * What "converged" means (README, "Exit codes and convergence"): the cluster read was complete, every
 * planned action succeeded, nothing was held back or deferred, no pod volume was skipped, and every
 * desired attachment ended the pass attached to its node's instance and reported on the node.
 */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { KubeNode, KubePv } from '../../lambda/core/kube.js';
import { MANAGED_ANNOTATION } from '../../lambda/core/nodes.js';
import type { RunningClock } from '../../sandbox/clock.js';
import type { World } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
useWorld((started) => ({ world, controller, clock } = started));

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });

function podEvents(name: string): { reason: string; type: string; message: string }[] {
  return (world.kube.list('Event', 'default') as { reason: string; type: string; message: string; involvedObject: { name: string } }[])
    .filter((e) => e.involvedObject.name === name)
    .map(({ reason, type, message }) => ({ reason, type, message }));
}

describe('a pass that cannot give a pod its volume does not say converged', () => {
  it('a pod whose PVC is unbound: skipped with its code, not converged', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.kube.seed([{ ...(world.kube.get('PersistentVolumeClaim', 'default', 'data-db-0') as object), status: { phase: 'Pending' } }]);
    world.addPod('db-0', volume, 'node-1');

    const report = await fullPass();

    expect(report.skipped.map((s) => [s.code, s.pod.name])).toEqual([['claim-unbound', 'db-0']]);
    expect(report.converged).toBe(false);
  });

  it('a pod on an unmanaged node: skipped with its code and volume, not converged', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    const node = world.kube.get('Node', undefined, 'node-1') as KubeNode;
    const annotations = { ...node.metadata.annotations };
    delete annotations[MANAGED_ANNOTATION];
    world.kube.seed([{ ...node, metadata: { ...node.metadata, annotations } }]);
    world.addPod('db-0', volume, 'node-1');

    const report = await fullPass();

    expect(report.skipped).toEqual([expect.objectContaining({ code: 'node-unmanaged', volumeId: volume.volumeId, nodeName: 'node-1' })]);
    expect(report.converged).toBe(false);
  });

  it("a PV with an invalid volume handle: the pod gets upstream's FailedAttachVolume event", async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    const pv = world.kube.get('PersistentVolume', undefined, volume.pvName) as KubePv;
    world.kube.seed([{ ...pv, spec: { ...pv.spec, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-bogus' } } }]);
    world.addPod('db-0', volume, 'node-1');

    const report = await fullPass();

    expect(report.skipped).toEqual([expect.objectContaining({ code: 'invalid-volume-id' })]);
    expect(report.converged).toBe(false);
    const events = podEvents('db-0');
    expect(events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'FailedAttachVolume']]);
    expect(events[0]!.message).toMatch(
      new RegExp(`^AttachVolume\\.Attach failed for volume "${volume.pvName}" : invalid EBS volume id "vol-bogus": `),
    );
    expect(world.ec2.counters().calls.AttachVolume).toBeUndefined();
  });

  it('a dry run reports the skipped volume too, and sends no event', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.kube.seed([{ ...(world.kube.get('PersistentVolumeClaim', 'default', 'data-db-0') as object), status: { phase: 'Pending' } }]);
    world.addPod('db-0', volume, 'node-1');

    const report = await controller.fullPass({ deadline: clock.now() + 30_000 }, { dryRun: true });

    expect(report.skipped.map((s) => s.code)).toEqual(['claim-unbound']);
    expect(report.converged).toBe(false);
  });

  it('a pass whose desired attachment is attached and reported is converged, and says nothing is missing', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');

    const report = await fullPass();

    expect(report).toMatchObject({ converged: true, skipped: [], notAttached: [] });
  });
});
