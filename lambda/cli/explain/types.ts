/** What `explain` answers: for each volume of the object, the chain of facts and one sentence. */
import type { PlanConfig } from '../../core/config.js';
import type { ClusterSnapshot } from '../../core/kube.js';
import type { MASS_DETACH_GUARD, SkipCode, WaitCode } from '../../core/reasons.js';
import type { TagScheme } from '../../core/tag-scheme.js';
import type { ActualState, InstanceId, NodeName, Observations, VolumeId } from '../../core/types.js';

export type ExplainTarget =
  | { kind: 'pod'; namespace: string; name: string }
  | { kind: 'pvc'; namespace: string; name: string }
  | { kind: 'volume'; volumeId: VolumeId }
  | { kind: 'node'; name: NodeName };

/** Everything explain looks at: what a full pass reads, plus what EC2 says now about the volumes concerned. */
export interface ExplainInputs {
  snapshot: ClusterSnapshot;
  /** False when the cluster read failed or was partial. */
  complete: boolean;
  actual: ActualState;
  observations: Observations;
  now: number;
  config: PlanConfig;
  /** The tags the role requires (VOLUME_TAGS, INSTANCE_TAGS): a refused attach names the one that is missing. */
  tagScheme?: TagScheme;
  /** Instance tags as DescribeInstances returned them, for the instances the chains name. */
  instanceTags?: ReadonlyMap<InstanceId, Record<string, string>>;
}

/** Where the chain stands, beyond the core's skip and wait codes. */
type StateCode =
  | 'attached'
  | 'not-reported'
  | 'will-attach'
  | 'will-detach'
  | 'will-resolve'
  | 'multi-attach'
  | 'not-authorized'
  | 'not-desired'
  | 'pod-not-found'
  | 'pod-not-scheduled'
  | 'pod-terminated'
  | 'no-ebs-volumes'
  | 'unknown';

export type ChainCode = SkipCode | WaitCode | typeof MASS_DETACH_GUARD | StateCode;

export type StepKind = 'pod' | 'claim' | 'pv' | 'volume' | 'desired' | 'record' | 'ec2' | 'volumeAttachment' | 'node';

export interface Step {
  kind: StepKind;
  /** What the object says, in a few words. */
  says: string;
}

export interface Chain {
  volumeId?: VolumeId;
  nodeName?: NodeName;
  /** The pod volume the chain starts from (`namespace/pod volume`), when it starts from a pod. */
  podVolume?: string;
  steps: Step[];
  code: ChainCode;
  /** Why it is or is not attached, what happens next and when. */
  sentence: string;
}

export interface Explanation {
  target: string;
  chains: Chain[];
  /** One sentence for the whole object. */
  verdict: string;
  /** Every chain is attached and reported. */
  attached: boolean;
}
