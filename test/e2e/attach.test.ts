import { describe, expect, it, vi } from 'vitest';
import { handler as scheduled } from '../../lambda/handlers/scheduled.js';
import type { World } from '../../sandbox/world.js';
import { eventReasons, reportedOn, volumeAttachments } from '../support/kube-reads.js';
import { lambdaContext } from '../support/lambda.js';
import { useWorld } from './world-fixture.js';

vi.hoisted(() => Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' }));

let world: World;
useWorld((started) => ({ world } = started));

describe('a full pass through the scheduled handler', () => {
  it('attaches the volume of a scheduled pod and reports it on the node and its VolumeAttachment', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');

    const result = await scheduled({ pass: 'full' }, lambdaContext());

    expect(result).toMatchObject({ converged: true, actions: 1 });
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1 });
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
    const [va] = volumeAttachments(world);
    expect(va).toMatchObject({ spec: { nodeName: 'node-1', source: { persistentVolumeName: volume.pvName } }, status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } } });
    expect(eventReasons(world)).toEqual(['SuccessfulAttachVolume']);
  });
});
