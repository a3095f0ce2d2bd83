import { DescribeVolumesCommand, StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { World } from '../../sandbox/world.js';
import { reportedOn, volumeAttachments } from '../support/kube-reads.js';
import { lambdaContext, sqsBatch } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let handlers: Handlers;
useWorld((started) => ({ world, controller, handlers } = started));

let events = 0;
const envelope = (detailType: string, source: string, detail: object) => ({
  version: '0',
  id: `event-${++events}`,
  'detail-type': detailType,
  source,
  account: '123456789012',
  time: '2026-11-22T08:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
});
const podEvent = (name: string, reason: string) =>
  envelope('Kubernetes Event', 'kubernetes-event-exporter', { reason, involvedObject: { kind: 'Pod', namespace: 'default', name } });

describe('targeted passes from events, through the real handlers', () => {
  it("a Scheduled event attaches the pod's volume without a full read of the cluster", async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    world.kube.resetRequests();

    const response = await handlers.clusterEvent(sqsBatch([podEvent('db-0', 'Scheduled'), podEvent('db-0', 'Pulled')]), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
    expect(volumeAttachments(world)).toHaveLength(1);
    const lists = world.kube
      .requests()
      .filter((r) => r.verb === 'list')
      .map((r) => r.path);
    expect(lists.every((path) => path.includes('/pods'))).toBe(true);
  });

  it('a Scheduled event naming the node: every object read once, EC2 asked once before AttachVolume, one read of the store', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    world.kube.resetRequests();
    world.ec2.resetCounters();
    world.dynamo.resetMeter();
    const scheduled = envelope('Kubernetes Event', 'kubernetes-event-exporter', {
      reason: 'Scheduled',
      message: 'Successfully assigned default/db-0 to node-1',
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'db-0' },
    });

    expect(await handlers.clusterEvent(sqsBatch([scheduled]), lambdaContext())).toEqual({ batchItemFailures: [] });

    const gets = world.kube
      .requests()
      .filter((r) => r.verb === 'get')
      .map((r) => `${r.resource}/${r.name}`);
    // The pod comes with its node's pods: no GET of its own, its claim and volume read once.
    expect(gets.filter((g) => g.startsWith('pods/'))).toEqual([]);
    expect(gets.filter((g) => g === `persistentvolumeclaims/${volume.claimName}`)).toHaveLength(1);
    expect(gets.filter((g) => g === `persistentvolumes/${volume.pvName}`)).toHaveLength(1);
    const ec2 = world.ec2.requests().map((r) => r.action);
    expect(ec2.slice(0, ec2.indexOf('AttachVolume')).sort()).toEqual(['DescribeInstances', 'DescribeVolumes']);
    // The node's volumes and the pod's in one read; the device name reserved without reading the reservations first.
    expect(world.dynamo.meter.calls.BatchGetItem).toBe(1);
    expect(world.dynamo.meter.calls.GetItem ?? 0).toBe(0);
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });

  it("a stopped instance's volumes are detached at once (forced), its root volume left alone", async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    world.kube.kubelet.setVolumesInUse('node-1', [volume.uniqueName]);
    world.kube.kubelet.deletePod('default', 'db-0');
    // The stopped node's kubelet no longer posts status: NotReady, its last volumesInUse still claiming the volume.
    world.kube.kubelet.setReady('node-1', false);
    const instanceId = world.nodes[0]!.instanceId;
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
    world.clock.advance(250); // EC2's stop (or termination) delay passes: no real waiting

    const event = envelope('EC2 Instance State-change Notification', 'aws.ec2', { 'instance-id': instanceId, state: 'stopped' });
    const response = await handlers.ec2Event(sqsBatch([event]), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(world.ec2.requests('DetachVolume').map((r) => r.params)).toEqual([
      expect.objectContaining({ VolumeId: volume.volumeId, Force: 'true' }),
    ]);
    expect(await controller.ports.store.get(volume.volumeId)).toBeUndefined();
    expect(volumeAttachments(world)).toEqual([]);
  });

  it('a terminated instance frees its records, node status and VolumeAttachments in that one event-driven pass', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    world.kube.kubelet.setVolumesInUse('node-1', [volume.uniqueName]);
    // The instance is gone with its kubelet: the node object stays (NotReady, stale volumesInUse) and its pod was evicted.
    world.kube.kubelet.setReady('node-1', false);
    world.kube.kubelet.deletePod('default', 'db-0');
    const instanceId = world.nodes[0]!.instanceId;
    await world.ec2Client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    world.clock.advance(250); // EC2's stop (or termination) delay passes: no real waiting
    const released = await world.ec2Client.send(new DescribeVolumesCommand({ VolumeIds: [volume.volumeId] }));
    expect(released.Volumes?.[0]).toMatchObject({ State: 'available', Attachments: [] });
    world.kube.resetRequests();

    const event = envelope('EC2 Instance State-change Notification', 'aws.ec2', { 'instance-id': instanceId, state: 'terminated' });
    const response = await handlers.ec2Event(sqsBatch([event]), lambdaContext());

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await controller.ports.store.get(volume.volumeId)).toBeUndefined();
    expect(reportedOn(world, 'node-1')).toEqual([]);
    expect(volumeAttachments(world)).toEqual([]);
    expect(world.ec2.counters().calls.DetachVolume).toBeUndefined();
    // Targeted, not a full pass: the only lists are the node list and the pods of that one node.
    const lists = world.kube
      .requests()
      .filter((r) => r.verb === 'list')
      .map((r) => r.resource);
    expect(lists.sort()).toEqual(['nodes', 'pods']);
  });

  it('does not detach when the node status cannot be updated first (the unreport must succeed)', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    world.kube.kubelet.deletePod('default', 'db-0');
    world.kube.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/node-1/status' }, 20, 403, 'Forbidden');

    const result = await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(result).toMatchObject({ converged: false });
    expect(world.ec2.counters().calls.DetachVolume).toBeUndefined();
  });
});
