/**
 * Node → EC2 instance, from `spec.providerID` (`aws:///<zone>/i-…`, as the AWS cloud provider writes
 * it). EC2 instance ids are `i-` + 8 or 17 lowercase hex characters.
 */
import type { InstanceId } from './types.js';

const PROVIDER_ID = /^aws:\/\/\/([a-z0-9-]+)\/(i-(?:[0-9a-f]{8}|[0-9a-f]{17}))$/;

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
