import { describe, expect, it } from 'vitest';
import type { World } from '../../sandbox/world.js';
import { eventReasons, reportedOn, volumeAttachments } from '../support/kube-reads.js';
import { lambdaContext } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { useWorld } from './world-fixture.js';

let world: World;
let handlers: Handlers;
useWorld((started) => ({ world, handlers } = started));

describe('a full pass through the scheduled handler', () => {
  it('attaches the volume of a scheduled pod and reports it on the node and its VolumeAttachment', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');

    const result = await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(result).toMatchObject({ converged: true, actions: 1 });
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1 });
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
    const [va] = volumeAttachments(world);
    expect(va).toMatchObject({
      spec: { nodeName: 'node-1', source: { persistentVolumeName: volume.pvName } },
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
    });
    expect(eventReasons(world)).toEqual(['SuccessfulAttachVolume']);
  });
});
