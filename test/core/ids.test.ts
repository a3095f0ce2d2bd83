import { describe, expect, it } from 'vitest';
import { parseProviderId } from '../../lambda/core/provider-id.js';
import { isVolumeId, parseVolumeId, uniqueNameFor, volumeIdOf } from '../../lambda/core/volume-id.js';

describe('parseVolumeId', () => {
  it.each([
    ['accepts vol- with 17 hex characters', 'vol-0123456789abcdef0', { ok: true, volumeId: 'vol-0123456789abcdef0' }],
    ['accepts the legacy 8-character form', 'vol-0123abcd', { ok: true, volumeId: 'vol-0123abcd' }],
    [
      'accepts aws://<zone>/vol-… and keeps the zone',
      'aws://us-east-1a/vol-0123456789abcdef0',
      { ok: true, volumeId: 'vol-0123456789abcdef0', zone: 'us-east-1a' },
    ],
    ['accepts aws:///vol-… with an empty zone', 'aws:///vol-0123abcd', { ok: true, volumeId: 'vol-0123abcd' }],
  ])('%s', (_name, input, expected) => {
    expect(parseVolumeId(input)).toEqual(expected);
  });

  it.each([
    ['rejects a wrong length', 'vol-0123456789'],
    ['rejects uppercase hex', 'vol-0123456789ABCDEF0'],
    ['rejects non-hex characters', 'vol-0123456789abcdefg'],
    ['rejects a snapshot id', 'snap-0123456789abcdef0'],
    ['rejects an empty string', ''],
    ['rejects another URL scheme', 'gce://zone/vol-0123abcd'],
    ['rejects extra path segments', 'aws://us-east-1a/extra/vol-0123abcd'],
    ['rejects surrounding whitespace', ' vol-0123abcd'],
  ])('%s', (_name, input) => {
    const parsed = parseVolumeId(input);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(JSON.stringify(input));
    expect(isVolumeId(input)).toBe(false);
  });
});

describe('unique volume names', () => {
  it('names a volume the way the kubelet expects for EBS CSI', () => {
    expect(uniqueNameFor('vol-0123abcd')).toBe('kubernetes.io/csi/ebs.csi.aws.com^vol-0123abcd');
  });

  it.each([
    ['reads the id back from an EBS CSI name', 'kubernetes.io/csi/ebs.csi.aws.com^vol-0123abcd', 'vol-0123abcd'],
    ['ignores another driver', 'kubernetes.io/csi/efs.csi.aws.com^fs-1', undefined],
    ['ignores an EBS name with a bad id', 'kubernetes.io/csi/ebs.csi.aws.com^vol-xyz', undefined],
  ])('%s', (_name, input, expected) => {
    expect(volumeIdOf(input)).toBe(expected);
  });
});

describe('parseProviderId', () => {
  it.each([
    [
      'maps aws:///<zone>/i-… to the instance and zone',
      'aws:///us-east-1a/i-0123456789abcdef0',
      { ok: true, instanceId: 'i-0123456789abcdef0', zone: 'us-east-1a' },
    ],
    ['accepts the 8-character instance form', 'aws:///eu-west-1b/i-0123abcd', { ok: true, instanceId: 'i-0123abcd', zone: 'eu-west-1b' }],
  ])('%s', (_name, input, expected) => {
    expect(parseProviderId(input)).toEqual(expected);
  });

  it.each([
    ['rejects a missing providerID', undefined, 'not set'],
    ['rejects an empty providerID', '', 'not set'],
    ['rejects a missing zone', 'aws:////i-0123abcd', 'malformed'],
    ['rejects another cloud', 'gce://project/zone/instance', 'malformed'],
    ['rejects a Fargate id', 'aws:///us-east-1a/fargate-ip-10-0-0-1', 'malformed'],
    ['rejects a bad instance id', 'aws:///us-east-1a/i-xyz', 'malformed'],
  ])('%s', (_name, input, message) => {
    const parsed = parseProviderId(input);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(message);
  });
});
