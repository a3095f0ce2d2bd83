/**
 * Attacher mode's fast path and sources: a pod's `Scheduled` event polls the VolumeAttachments kcm
 * will create for it and attaches them without waiting for the minute's full pass; inline volumes
 * work through the same path; two invocations at once attach once.
 */
import { describe, expect, it } from 'vitest';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../../../sandbox/events.js';
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

  it('two invocations at once: one AttachVolume, one object attached', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    const budget = { deadline: Date.now() + 30_000 };

    await Promise.all([world.controller.fullPass(budget), world.invocation().fullPass(budget)]);

    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
    expect(kcm.va(name)!.status).toMatchObject({ attached: true });
  });
});
