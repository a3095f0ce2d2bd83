import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import { beginOperation } from '../../lambda/core/transitions.js';
import type { World } from '../../sandbox/world.js';
import { reportedOn } from '../support/kube-reads.js';
import { lambdaContext } from '../../sandbox/events.js';
import type { RunningClock } from '../../sandbox/clock.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { memoryClaims } from '../support/device-claims.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
// The controller and EC2 share a clock that can jump past a lease (the default 15 min) without waiting.
let handlers: Handlers;
useWorld((started) => ({ world, controller, clock, handlers } = started));

const fullPass = () => handlers.scheduled({ pass: 'full' }, lambdaContext());
const ec2Calls = () => world.ec2.counters().calls;
const reported = (node: string) => reportedOn(world, node);

describe('safety (DESIGN §11)', () => {
  it('detaches nothing when the cluster cannot be listed, even though the pod looks gone', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    await fullPass();
    world.kube.kubelet.deletePod('default', 'db-0');
    world.kube.kubelet.setVolumesInUse('node-1', []);
    world.kube.faults.failNext({ method: 'GET', path: '/api/v1/pods' }, 10, 403, 'Forbidden');

    const result = await fullPass();

    expect(result).toMatchObject({ converged: false });
    expect(ec2Calls().DetachVolume).toBeUndefined();
    expect(reported('node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });

  it.each([
    ['before it called EC2', false],
    ['right after AttachVolume', true],
  ])('a takeover after an invocation died %s: no second operation within the lease, one attach after it', async (_when, calledEc2) => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    const node = world.nodes[0]!;
    // The dead invocation's lease: a five-minute function timeout plus the margin (core leaseMsFor).
    const leaseMs = 5 * 60_000 + controller.config.plan.leaseMarginMs;
    // What the dead invocation left: its intent in the store (and perhaps an attach in EC2).
    const intent = beginOperation(
      undefined,
      {
        volumeId: volume.volumeId,
        uniqueName: volume.uniqueName,
        accessModes: ['ReadWriteOnce'],
        multiAttach: false,
        kind: 'attach',
        nodeName: 'node-1',
        instanceId: node.instanceId,
        operationId: 'dead-invocation',
      },
      clock.now(),
      leaseMs,
    );
    if (!intent.ok) throw new Error(intent.reason);
    expect(await controller.ports.store.put(intent.record)).toMatchObject({ ok: true });
    if (calledEc2)
      await controller.ports.blockStorage.attach({ volumeId: volume.volumeId, instanceId: node.instanceId, devices: memoryClaims() });
    const attachesBefore = calledEc2 ? 1 : 0;

    // Within the lease the dead holder may still be at work: passes leave its volume alone.
    expect(await fullPass()).toMatchObject({ converged: false });
    clock.advance(leaseMs - 60_000);
    expect(await controller.fullPass({ deadline: clock.now() + 30_000 })).toMatchObject({ converged: false });
    expect(ec2Calls().AttachVolume ?? 0).toBe(attachesBefore);
    const held = await controller.ports.store.get(volume.volumeId);
    expect(Object.values(held?.operations ?? {}).map((op) => op.id)).toEqual(['dead-invocation']);

    // Past the lease: the next pass resolves the intent against EC2, and the volume converges.
    clock.advance(60_001);
    const resolving = await controller.fullPass({ deadline: clock.now() + 30_000 });
    expect(resolving.results).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'resolve', outcome: 'ok' })]));
    await controller.fullPass({ deadline: clock.now() + 30_000 });
    expect(await controller.fullPass({ deadline: clock.now() + 30_000 })).toMatchObject({ converged: true });

    expect(ec2Calls().AttachVolume).toBe(1);
    const record = await controller.ports.store.get(volume.volumeId);
    expect(record?.operations).toEqual({});
    expect(record?.attachments['node-1']).toMatchObject({ state: 'attached', device: '/dev/xvdaa' });
    expect(Object.keys(record?.attachments ?? {})).toEqual(['node-1']);
    const described = await world.ec2Client.send(new DescribeVolumesCommand({ VolumeIds: [volume.volumeId] }));
    expect(described.Volumes?.[0]?.Attachments).toEqual([expect.objectContaining({ InstanceId: node.instanceId, State: 'attached' })]);
    expect(reported('node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });
});
