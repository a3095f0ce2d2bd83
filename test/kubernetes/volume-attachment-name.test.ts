import { describe, expect, it } from 'vitest';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';

// Vectors: `printf '%s' "<handle><driver><node>" | sha256sum`, i.e. kubelet's getAttachmentName
// (pkg/volume/csi/csi_attacher.go: sha256 of the three strings concatenated, lowercase hex).
describe('VolumeAttachment name (kubelet getAttachmentName)', () => {
  it.each([
    [
      'a 17-digit volume on a DNS-named node',
      'vol-0123456789abcdef0',
      'ip-10-0-1-23.ec2.internal',
      'csi-880af19cc88681d68f80a4a11ffa3d31efb3ee865ea742d7701040e168882925',
    ],
    [
      'an 8-digit volume on a short node name',
      'vol-0a1b2c3d',
      'node-a',
      'csi-86adf3698e1df2aeed56e118cf473e7e731e61c456f77d98c4ee14901b930da9',
    ],
    [
      'a node named by its instance id',
      'vol-0123456789abcdef0',
      'i-0fedcba9876543210',
      'csi-c20a8c9578724183ce5e20b211656d6a7aed217fdcb7b7d2c029c847c0a46b25',
    ],
  ])('%s', (_behaviour, handle, node, expected) => {
    expect(volumeAttachmentName(handle, node)).toBe(expected);
  });

  it('is a valid object name: csi- and 64 lowercase hex characters', () => {
    expect(volumeAttachmentName('vol-1', 'n')).toMatch(/^csi-[0-9a-f]{64}$/);
  });

  it('differs per node and per attacher', () => {
    const base = volumeAttachmentName('vol-0a1b2c3d', 'node-a');
    expect(volumeAttachmentName('vol-0a1b2c3d', 'node-b')).not.toBe(base);
    expect(volumeAttachmentName('vol-0a1b2c3d', 'node-a', 'other.csi.example.com')).not.toBe(base);
  });
});
