/**
 * Items written by the previous version of the controller are read by this one while both run
 * (a deployment rolls over invocations, not at once): what the old item says must still hold.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { LEGACY_LISTER, parseItem } from '../../lambda/adapters/dynamodb/item.js';

const attachment = {
  nodeName: 'node-1',
  instanceId: 'i-0123456789abcdef0',
  state: 'attached',
  device: '/dev/xvdba',
  mounted: true,
  reported: false,
  since: 1_000,
};
const storedBy = (extra: object) =>
  marshall({
    pk: 'volume#vol-0123456789abcdef0',
    volumeId: 'vol-0123456789abcdef0',
    uniqueName: 'kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0',
    accessModes: ['ReadWriteOnce'],
    multiAttach: false,
    attachments: { 'node-1': { ...attachment, ...extra } },
    operations: {},
    backoff: {},
    version: 3,
  });

describe('an item from the version before listing claims were per pass', () => {
  it("keeps its single listing claim (listingUntil) as a claim, so a detach still waits for that pass's node-status write", () => {
    const parsed = parseItem(storedBy({ listingUntil: 5_000 }));
    expect(parsed).toMatchObject({ kind: 'volume' });
    const read = parsed.kind === 'volume' ? parsed.record.attachments['node-1'] : undefined;
    expect(read?.listingClaims).toEqual({ [LEGACY_LISTER]: 5_000 });
    expect(read).not.toHaveProperty('listingUntil');
  });

  it('merges it with per-pass claims written since', () => {
    const parsed = parseItem(storedBy({ listingUntil: 5_000, listingClaims: { 'pass-b': 6_000 } }));
    const read = parsed.kind === 'volume' ? parsed.record.attachments['node-1'] : undefined;
    expect(read?.listingClaims).toEqual({ [LEGACY_LISTER]: 5_000, 'pass-b': 6_000 });
  });

  it('reads an item without any claim as before', () => {
    const parsed = parseItem(storedBy({}));
    expect(parsed.kind === 'volume' ? parsed.record.attachments['node-1'] : undefined).toEqual(attachment);
  });
});
