import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import { beginOperation } from '../../lambda/core/transitions.js';
import { handler as scheduled } from '../../lambda/handlers/scheduled.js';
import { startWorld, type World } from '../../sandbox/world.js';
import { reportedOn } from '../support/kube-reads.js';
import { lambdaContext, wireHandlers } from '../support/lambda.js';

vi.hoisted(() => Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' }));

let world: World;
let controller: Controller;

beforeEach(async () => {
  world = await startWorld({ nodes: 2 });
  // A one-second lease, so a dead invocation's operation expires within the test.
  controller = wireHandlers(world, { LEASE_SECONDS: '1' });
});
afterEach(async () => {
  await controller.close();
  await world.stop();
});

const fullPass = () => scheduled({ pass: 'full' }, lambdaContext());
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
  ])('converges after an invocation died %s, once the lease expired', async (_when, calledEc2) => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    const node = world.nodes[0]!;
    // What the dead invocation left: its intent in the store (and perhaps an attach in EC2).
    const intent = beginOperation(undefined, {
      volumeId: volume.volumeId, uniqueName: volume.uniqueName, accessModes: ['ReadWriteOnce'], multiAttach: false,
      kind: 'attach', nodeName: 'node-1', instanceId: node.instanceId, operationId: 'dead-invocation',
    }, Date.now(), 1_000);
    if (!intent.ok) throw new Error(intent.reason);
    expect(await controller.ports.store.put(intent.record)).toMatchObject({ ok: true });
    if (calledEc2) await controller.ports.blockStorage.attach({ volumeId: volume.volumeId, instanceId: node.instanceId });

    expect(await fullPass()).toMatchObject({ converged: false });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await fullPass();
    await fullPass();

    expect(ec2Calls().AttachVolume).toBe(1);
    const record = await controller.ports.store.get(volume.volumeId);
    expect(record?.operations).toEqual({});
    expect(record?.attachments['node-1']).toMatchObject({ state: 'attached', device: '/dev/xvdaa' });
    expect(reported('node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });
});
