/**
 * The account's AWS-managed `aws/ebs` key, as EC2 names it. DescribeVolumes gives a volume's key as
 * its key ARN (`arn:aws:kms:<region>:<account>:key/<key id>`), never the alias, so nothing in the
 * name says `aws/ebs`; its key id is the account's own (here derived from account and region, so a
 * world names it the same on every run). Its key policy lets the account's callers use it through
 * EC2: an attach under it needs no grant in the caller's policy.
 */
import { createHash } from 'node:crypto';

export function awsManagedEbsKeyArn(region: string, account: string): string {
  const hex = createHash('sha256').update(`aws/ebs:${account}:${region}`).digest('hex');
  const keyId = [hex.slice(0, 8), hex.slice(8, 12), `4${hex.slice(13, 16)}`, `8${hex.slice(17, 20)}`, hex.slice(20, 32)].join('-');
  return `arn:aws:kms:${region}:${account}:key/${keyId}`;
}

/** The region of an availability zone (`us-east-1a` → `us-east-1`). */
export const regionOfZone = (zone: string): string => zone.slice(0, -1);
