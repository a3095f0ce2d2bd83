/** The error classifier: every EC2 code the adapter knows, and the outcomes attach and detach make of them. */
import { describe, expect, it } from 'vitest';
import { attachOutcomeOf, classifyEc2Error, detachOutcomeOf, idsInMessage, type Ec2ErrorReason } from '../../lambda/adapters/ec2/errors.js';

/** An error shaped as the SDK throws it: name = EC2 code, HTTP status in $metadata. */
function ec2Error(code: string, message = 'message', status = 400): Error {
  return Object.assign(new Error(message), { name: code, $metadata: { httpStatusCode: status } });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('classifyEc2Error', () => {
  it.each<[string, unknown, Ec2ErrorReason]>([
    ['RequestLimitExceeded is throttling', ec2Error('RequestLimitExceeded', 'Request limit exceeded.', 503), 'throttled'],
    ['VolumeInUse', ec2Error('VolumeInUse', 'vol-1 is already attached to an instance'), 'volume-in-use'],
    ['InvalidVolume.NotFound', ec2Error('InvalidVolume.NotFound'), 'volume-not-found'],
    ['InvalidInstanceID.NotFound', ec2Error('InvalidInstanceID.NotFound'), 'instance-not-found'],
    ['IncorrectState', ec2Error('IncorrectState'), 'incorrect-state'],
    ['InvalidAttachment.NotFound', ec2Error('InvalidAttachment.NotFound'), 'attachment-not-found'],
    ['AttachmentLimitExceeded', ec2Error('AttachmentLimitExceeded'), 'attachment-limit'],
    ['IncorrectInstanceState', ec2Error('IncorrectInstanceState'), 'incorrect-instance-state'],
    [
      'InvalidParameterValue "already in use" is a taken device',
      ec2Error('InvalidParameterValue', "Invalid value '/dev/xvdba' for unixDevice. Attachment point /dev/xvdba is already in use"),
      'device-in-use',
    ],
    ['other InvalidParameterValue is final', ec2Error('InvalidParameterValue', 'Value (x) for parameter device is invalid.'), 'final'],
    ['InvalidVolume.ZoneMismatch is final', ec2Error('InvalidVolume.ZoneMismatch'), 'final'],
    ['InternalError (500) is transient', ec2Error('InternalError', 'internal', 500), 'transient'],
    ['Unavailable (503) is transient', ec2Error('Unavailable', 'unavailable', 503), 'transient'],
    ['an unknown 5xx code is transient', ec2Error('SomethingNew', 'x', 502), 'transient'],
    ['TimeoutError is transient', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), 'transient'],
    ['ECONNRESET is transient', socketError('ECONNRESET'), 'transient'],
    ['ECONNREFUSED is transient', socketError('ECONNREFUSED'), 'transient'],
    ['ENOTFOUND (DNS) is transient', socketError('ENOTFOUND'), 'transient'],
    ['UnauthorizedOperation is a refusal of the role', ec2Error('UnauthorizedOperation'), 'unauthorized'],
    [
      'CustomerKeyHasBeenRevoked (no grant on the volume key) is a refusal of the role',
      ec2Error('CustomerKeyHasBeenRevoked'),
      'unauthorized',
    ],
    ['a thrown string is final', 'boom', 'final'],
  ])('%s', (_name, error, reason) => {
    expect(classifyEc2Error(error).reason).toBe(reason);
  });

  it('keeps the code and message', () => {
    expect(classifyEc2Error(ec2Error('VolumeInUse', 'vol-1 is already attached to an instance'))).toEqual({
      reason: 'volume-in-use',
      code: 'VolumeInUse',
      message: 'vol-1 is already attached to an instance',
    });
  });
});

describe('attachOutcomeOf', () => {
  const outcome = (code: string, message = 'm', status = 400) =>
    attachOutcomeOf(classifyEc2Error(ec2Error(code, message, status)), '/dev/xvdaa');
  it.each([
    ['RequestLimitExceeded', 503, { kind: 'throttled', message: 'm' }],
    ['InternalError', 500, { kind: 'transient', message: 'm' }],
    ['InvalidVolume.NotFound', 400, { kind: 'volume-gone', message: 'm' }],
    ['InvalidInstanceID.NotFound', 400, { kind: 'instance-gone', message: 'm' }],
    ['AttachmentLimitExceeded', 400, { kind: 'limit-reached', message: 'm' }],
    ['VolumeInUse', 400, { kind: 'attached-elsewhere', instanceIds: [], message: 'm' }],
    ['IncorrectInstanceState', 400, { kind: 'failed', code: 'IncorrectInstanceState', message: 'm' }],
    ['InvalidVolume.ZoneMismatch', 400, { kind: 'failed', code: 'InvalidVolume.ZoneMismatch', message: 'm' }],
  ] as const)('%s → %o', (code, status, expected) => {
    expect(outcome(code, 'm', status)).toEqual(expected);
  });

  it('a taken device carries the device tried', () => {
    expect(outcome('InvalidParameterValue', 'Attachment point /dev/xvdaa is already in use')).toMatchObject({
      kind: 'device-in-use',
      device: '/dev/xvdaa',
    });
  });
});

describe('detachOutcomeOf', () => {
  it.each([
    ['IncorrectState', { kind: 'already-detached' }],
    ['InvalidAttachment.NotFound', { kind: 'already-detached' }],
    ['InvalidVolume.NotFound', { kind: 'already-detached' }],
    ['InvalidInstanceID.NotFound', { kind: 'already-detached' }],
    ['OperationNotPermitted', { kind: 'failed', code: 'OperationNotPermitted', message: 'm' }],
  ])('%s → %o', (code, expected) => {
    expect(detachOutcomeOf(classifyEc2Error(ec2Error(code, 'm')))).toEqual(expected);
  });

  it('throttling and transient errors may be retried', () => {
    expect(detachOutcomeOf(classifyEc2Error(ec2Error('RequestLimitExceeded', 'm', 503)))).toEqual({ kind: 'throttled', message: 'm' });
    expect(detachOutcomeOf(classifyEc2Error(socketError('ECONNRESET')))).toMatchObject({ kind: 'transient' });
  });
});

describe('idsInMessage', () => {
  it.each([
    ["The volume 'vol-0abc' does not exist.", 'vol-', ['vol-0abc']],
    ["The volumes 'vol-0abc, vol-0def' do not exist.", 'vol-', ['vol-0abc', 'vol-0def']],
    ["The instance IDs 'i-0aa, i-0bb' do not exist", 'i-', ['i-0aa', 'i-0bb']],
    ['The volume does not exist.', 'vol-', []],
  ] as const)('%s', (message, prefix, ids) => {
    expect(idsInMessage(message, prefix)).toEqual(ids);
  });
});
