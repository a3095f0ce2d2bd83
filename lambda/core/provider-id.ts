/**
 * Node → EC2 instance, from `spec.providerID` (`aws:///<zone>/i-…`, as the AWS cloud provider writes
 * it). EC2 instance ids are `i-` + 8 or 17 lowercase hex characters.
 */
import type { InstanceId } from './types.js';

const INSTANCE_ID_SOURCE = 'i-(?:[0-9a-f]{8}|[0-9a-f]{17})';
const INSTANCE_ID = new RegExp(`^${INSTANCE_ID_SOURCE}$`);
const PROVIDER_ID = new RegExp(`^aws:///([a-z0-9-]+)/(${INSTANCE_ID_SOURCE})$`);

export function isInstanceId(input: string): input is InstanceId {
  return INSTANCE_ID.test(input);
}

export type ParsedProviderId = { ok: true; instanceId: InstanceId; zone: string } | { ok: false; error: string };

export function parseProviderId(providerID: string | undefined): ParsedProviderId {
  if (providerID === undefined || providerID === '') {
    return { ok: false, error: 'spec.providerID is not set' };
  }
  const match = PROVIDER_ID.exec(providerID);
  if (!match) {
    return {
      ok: false,
      error: `malformed spec.providerID ${JSON.stringify(providerID)}: expected aws:///<zone>/i-<8 or 17 hex characters>`,
    };
  }
  return { ok: true, zone: match[1]!, instanceId: match[2]! };
}
