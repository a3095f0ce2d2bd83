/**
 * Attacher mode's fast path and sources: a pod's `Scheduled` event polls the VolumeAttachments kcm
 * will create for it and attaches them without waiting for the minute's full pass; inline volumes
 * and in-tree PVs work through the same path; two invocations at once attach once.
 */
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../../lambda/core/attacher/names.js';
import type { KubeNode, KubePv } from '../../../lambda/core/kube.js';
import { ec2StateChange, kubernetesEvent, lambdaContext, sqsBatch } from '../../../sandbox/events.js';
import type { Handlers } from '../../../sandbox/local-stack.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let handlers: Handlers;
let kcm: KcmPlayer;
useAttacherWorld((started) => ({ world, handlers, kcm } = started));

const scheduled = (name: string) =>
  kubernetesEvent({ kind: 'Pod', namespace: 'default', name }, 'Scheduled', `Successfully assigned default/${name} to node-1`, Date.now());

describe('attacher mode: triggers and sources', () => {
  it("attaches on the pod's Scheduled event, polling for the VolumeAttachment kcm creates a moment later", async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    const handled = handlers.clusterEvent(sqsBatch([scheduled('db-0')]), lambdaContext());
    const name = await kcm.attach(volume, 'node-1');

    expect(await handled).toEqual({ batchItemFailures: [] });

    expect(kcm.va(name)!.status).toMatchObject({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } });
  });

  it('attaches an inline volume spec', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach({ inline: volume.volumeId }, 'node-2');

    await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(kcm.va(name)!.status).toMatchObject({ attached: true });
  });

  it('attaches an in-tree awsElasticBlockStore PV, its aws://zone/vol-… id translated as CSI migration does', async () => {
    const volume = await world.createVolume();
    const pv = world.kube.get('PersistentVolume', undefined, volume.pvName) as KubePv;
    const spec = { ...pv.spec, awsElasticBlockStore: { volumeID: `aws://us-east-1a/${volume.volumeId}`, fsType: 'ext4' } };
    delete spec.csi;
    world.kube.seed([{ ...pv, spec }]);
    const name = await kcm.attach(volume, 'node-1');

    await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(world.ec2.requests('AttachVolume').map((r) => r.params.VolumeId)).toEqual([volume.volumeId]);
    expect(kcm.va(name)!.status).toMatchObject({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } });
    expect(kcm.pv(volume.pvName)!.metadata.finalizers).toContain(ATTACHER_FINALIZER);
  });

  it('two invocations at once: one AttachVolume, one object attached', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    // Two execution environments, each through the scheduled handler, as two overlapping Lambda invocations.
    const passes = [world.handlers(), world.handlers(world.invocation())].map((h) => h.scheduled({ pass: 'full' }, lambdaContext()));

    await Promise.all(passes);

    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
    expect(kcm.va(name)!.status).toMatchObject({ attached: true });
  });
});

describe('attacher mode: a dead instance', () => {
  it("the 'terminated' event's pass taints the node out of service, though the full verification is not due", async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    await kcm.attach(volume, 'node-1');
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    await world.ec2Client.send(new TerminateInstancesCommand({ InstanceIds: [world.nodes[0]!.instanceId] }));
    world.clock.advance(250);

    // The pass then follows the node, waiting for kcm to delete its VolumeAttachment (nobody plays that here): a short invocation ends the wait.
    await handlers.ec2Event(sqsBatch([ec2StateChange(world.nodes[0]!.instanceId, 'terminated', world.clock.now())]), lambdaContext(20_000));

    const node = world.kube.get('Node', undefined, 'node-1') as KubeNode;
    expect(node.spec?.taints?.map((t) => t.key)).toEqual(['node.kubernetes.io/out-of-service']);
  });
});
