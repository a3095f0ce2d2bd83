import { describe, expect, it } from 'vitest';
import { reportableDevice } from '../../lambda/core/reportable.js';
import type { ActualAttachment, VolumeObservation } from '../../lambda/core/types.js';
import { attachment, instanceOf, vol } from './builders.js';

const V = vol(1);
const onA = instanceOf('node-a');
const ec2Shows = (...instances: string[]): VolumeObservation => ({
  volumeId: V,
  exists: true,
  attachments: instances.map((instanceId) => ({ instanceId, state: 'attached' as const, device: '/dev/xvdaa' })),
});

describe('reportableDevice: may a VolumeAttachment say attached (both modes)', () => {
  it.each<[string, ActualAttachment | undefined, string | undefined, VolumeObservation | undefined, string | undefined]>([
    ['attached on the object instance, EC2 not asked: its device', attachment('node-a'), onA, undefined, '/dev/xvdaa'],
    ['attached, and EC2 still shows it there', attachment('node-a'), onA, ec2Shows(onA), '/dev/xvdaa'],
    ['attached on record, but EC2 shows it nowhere this pass', attachment('node-a'), onA, ec2Shows(), undefined],
    ['attached on record, EC2 shows it on another instance only', attachment('node-a'), onA, ec2Shows(instanceOf('node-b')), undefined],
    ['attached to a previous instance of the node', attachment('node-a', { instanceId: 'i-0000000000000old' }), onA, undefined, undefined],
    ['the object instance is unknown', attachment('node-a'), undefined, undefined, undefined],
    ['still attaching', attachment('node-a', { state: 'attaching' }), onA, undefined, undefined],
    ['uncertain', attachment('node-a', { state: 'uncertain' }), onA, undefined, undefined],
    ['no attachment at all', undefined, onA, undefined, undefined],
  ])('%s', (_case, held, instanceId, observation, expected) => {
    expect(reportableDevice(held, { instanceId, observation })).toBe(expected);
  });

  it('never reports an attachment without a device', () => {
    const { device: _none, ...noDevice } = attachment('node-a');
    expect(reportableDevice(noDevice, { instanceId: onA, observation: undefined })).toBeUndefined();
  });
});
