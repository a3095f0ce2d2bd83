/**
 * The EC2 calls the oracle judges, as the local EC2 received them: what the ledger drains after a
 * step and what the checks read. Their own file so that neither imports the other.
 */

export interface DetachCall {
  volumeId: string;
  instanceId?: string;
}

export interface Ec2Mutation {
  action: 'AttachVolume' | 'DetachVolume';
  volumeId: string;
  instanceId?: string;
  /** AttachVolume's device name. */
  device?: string;
}
