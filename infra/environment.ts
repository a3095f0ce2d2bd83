/**
 * What the stack hands every function as its environment, from the validated settings: kept apart
 * from the stack so the EKS guide's script (scripts/eks-guide.ts) gives the local functions exactly
 * the environment a `cdk deploy` of the same context would, without loading the CDK.
 */
import { SETTING_DEFAULTS } from '../lambda/config.js';
import type { StackSettings } from './settings.js';

/**
 * The environment every handler validates at cold start (lambda/config.ts): what identifies the
 * cluster, and the settings whose values differ from the handlers' own defaults.
 */
export function controllerEnvironment(settings: StackSettings, tableName: string): Record<string, string> {
  // Leases need no setting here: each ends at its own invocation's end (the function timeout) plus a margin.
  const tunables: Partial<Record<keyof typeof SETTING_DEFAULTS, string>> = {
    SYNC_PERIOD_SECONDS: String(settings.syncPeriodSeconds),
    MAX_WAIT_FOR_UNMOUNT_SECONDS: String(settings.maxWaitForUnmountSeconds),
    LEASE_FENCE_NAMESPACE: settings.leaseFenceNamespace,
    LEASE_FENCE_NAME: settings.leaseFenceName,
  };
  const differing = Object.entries(tunables).filter(([key, value]) => SETTING_DEFAULTS[key as keyof typeof SETTING_DEFAULTS] !== value);
  return {
    // Always explicit, though `controller` is the handlers' default: the deployed mode shows in the console.
    OPERATING_MODE: settings.mode,
    TABLE_NAME: tableName,
    CLUSTER_NAME: settings.clusterName,
    CLUSTER_ENDPOINT: settings.apiEndpoint,
    CLUSTER_CA: settings.certificateAuthority,
    // The role's tag conditions, so the controller can name the tag a refused volume lacks.
    VOLUME_TAGS: settings.volumeTags,
    INSTANCE_TAGS: settings.instanceTags,
    // The keys the role may grant on, so the shadow's preflight names a volume under any other (only when there are some).
    ...(settings.kmsKeyArns.length > 0 ? { KMS_KEY_ARNS: settings.kmsKeyArns.join(',') } : {}),
    ...(settings.ec2BudgetTableName ? { EC2_BUDGET_TABLE_NAME: settings.ec2BudgetTableName } : {}),
    // The handlers taint by default; off only needs saying.
    ...(settings.outOfServiceTaint === 'off' ? { OUT_OF_SERVICE_TAINT: 'off' } : {}),
    // The fence is off by default (handover step 2 turns it on).
    ...(settings.leaseFence === 'on' ? { LEASE_FENCE: 'on' } : {}),
    // Always explicit: the handlers derive it from the mode, and the deployed choice shows in the console.
    WRITES: settings.writes,
    // Only the operator's word that no csi-attacher runs lets attacher mode write without the fence.
    ...(settings.sidecarGone ? { SIDECAR_GONE: 'true' } : {}),
    ...Object.fromEntries(differing),
  };
}
