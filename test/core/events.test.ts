import { describe, expect, it } from 'vitest';
import { attachFailedEvent, attachSucceededEvent, multiAttachMessage, volumeSpecName } from '../../lambda/core/events.js';
import type { PodRef } from '../../lambda/core/types.js';

const p = (ref: string): PodRef => {
  const [namespace, name] = ref.split('/') as [string, string];
  return { namespace, name, uid: `uid-${name}` };
};

// The texts of upstream's Test_ReportMultiAttachError, for the pod ns1/pod1 that waits.
describe('Multi-Attach error texts (upstream reportMultiAttachError)', () => {
  it.each([
    [
      'no pods use the volume elsewhere',
      [],
      'Multi-Attach error for volume "volume-name" Volume is already exclusively attached to one node and can\'t be attached to another',
    ],
    [
      'pods in the same namespace use it',
      ['ns1/pod2'],
      'Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod2',
    ],
    [
      'several pods in the same namespace are listed',
      ['ns1/pod2', 'ns1/pod3'],
      'Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod2, pod3',
    ],
    [
      'pods in another namespace are only counted',
      ['ns2/pod2'],
      'Multi-Attach error for volume "volume-name" Volume is already used by 1 pod(s) in different namespaces',
    ],
    [
      'pods in both are listed and counted',
      ['ns2/pod2', 'ns1/pod3'],
      'Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod3 and 1 pod(s) in different namespaces',
    ],
  ])('%s', (_name, elsewhere, message) => {
    expect(multiAttachMessage('volume-name', p('ns1/pod1'), elsewhere.map(p))).toBe(message);
  });

  it('names the volume as the user wrote it: the PV, or the inline pod volume', () => {
    expect(volumeSpecName({ source: { kind: 'pv', pvName: 'pvc-123' } })).toBe('pvc-123');
    expect(volumeSpecName({ source: { kind: 'inline', podVolumeName: 'scratch' } })).toBe('scratch');
  });
});

describe('attach event texts (upstream operation executor: generateVolumeMsg "%v for volume %q %v")', () => {
  it.each([
    [
      'success names the volume and ends in a space, as GenerateMsg with an empty suffix does',
      attachSucceededEvent('pvc-1'),
      { type: 'Normal', reason: 'SuccessfulAttachVolume', message: 'AttachVolume.Attach succeeded for volume "pvc-1" ' },
    ],
    [
      'failure appends ": <error>" after a space, as GenerateError does',
      attachFailedEvent('pvc-1', 'VolumeInUse: vol-1 is attached elsewhere'),
      {
        type: 'Warning',
        reason: 'FailedAttachVolume',
        message: 'AttachVolume.Attach failed for volume "pvc-1" : VolumeInUse: vol-1 is attached elsewhere',
      },
    ],
  ])('%s', (_behaviour, event, expected) => {
    expect(event).toEqual(expected);
  });
});
