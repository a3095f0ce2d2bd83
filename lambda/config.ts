/**
 * The controller's configuration, read once per cold start from the environment and
 * validated with zod so a mistake reads as one clear sentence per variable
 * (the variables are pinned in the runtime contract shared with the CDK stack).
 */
import type { z } from 'zod';
import { DEFAULT_PLAN_CONFIG, type PlanConfig } from './core/config.js';
import type { CoverageSettings } from './core/coverage.js';
import { parseTagList, type TagScheme } from './core/tag-scheme.js';
import type { ReconcileSettings } from './reconcile/pass/types.js';
import { ENV_SCHEMA, SETTING_SPECS, SETTINGS, type Env, type SettingName } from './settings.js';

/** Where the pass runs: in Lambda the EKS endpoint is mandatory; locally a kubeconfig may stand in. */
export type Runtime = 'lambda' | 'local';

export interface Config {
  tableName: string;
  clusterName: string;
  /** The tags the role requires on volumes and instances (VOLUME_TAGS, INSTANCE_TAGS). */
  tagScheme: TagScheme;
  /** KMS_KEY_ARNS: the keys the role may create EC2's grant on (an encrypted volume's attach needs one); empty: none. */
  kmsKeyArns: readonly string[];
  /** How the Kubernetes API is reached: EKS endpoint + CA + token, or a kubeconfig file (default path when undefined). */
  /** EKS: `caData` is the cluster CA as EKS hands it out (base64 of the PEM). */
  kube: { kind: 'eks'; endpoint: string; caData: string } | { kind: 'kubeconfig'; path?: string };
  region: string;
  /** Local runs point the SDK clients at local servers; in Lambda both are unset. */
  endpoints: { ec2?: string; dynamodb?: string };
  /** Static credentials of a local run; in Lambda the role's come from the default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Who decides what is attached where: we (`controller`) or kcm through VolumeAttachments (`attacher`, EKS). */
  mode: 'controller' | 'attacher';
  /** WRITES=on; off: every pass is a dry run (attacher mode's shadow of the sidecar, issue #12). */
  writes: boolean;
  /** SIDECAR_GONE=true: the operator says no csi-attacher runs (attacher mode may write without the fence). */
  sidecarGone: boolean;
  /** Attacher mode: how long a `Scheduled` event polls for kcm's VolumeAttachments. */
  attacherWaitMs: number;
  syncPeriodMs: number;
  /** COMPLETE_PASS_SECONDS and VERIFY_SLICES: covered passes between complete ones. */
  coverage: CoverageSettings;
  /** How long one pass waits for an attach to reach `attached` (the rest is left to the next pass). */
  maxAttachWaitMs: number;
  maxConcurrentOperations: number;
  /** The Kubernetes client's own rate limit (KUBE_API_QPS, KUBE_API_BURST). */
  kubeApi: { qps: number; burst: number };
  /** OUT_OF_SERVICE_TAINT=on. */
  outOfServiceTaint: boolean;
  /** Attacher mode: how long an EC2 event's pass follows a dead instance's VolumeAttachments. */
  outOfServiceFollowMs: number;
  /** LEASE_FENCE=on: the sidecar's Lease we hold and how (docs/lease-fence.md); undefined when off. */
  leaseFence?: LeaseFenceConfig;
  /** Where the csi-attacher sidecar's Lease is (LEASE_FENCE_NAMESPACE, LEASE_FENCE_NAME): the fence holds it, shadow checks it exists. */
  sidecarLease: { name: string; namespace: string };
  /** The shared budget of EC2's mutating calls, per action, and the table that keeps it. */
  ec2Budget: {
    tableName: string;
    sizes: Record<'AttachVolume' | 'DetachVolume', { ratePerSecond: number; burst: number }>;
  };
  plan: PlanConfig;
  serviceName: string;
  metricsNamespace: string;
  logLevel: string;
}

export interface LeaseFenceConfig {
  name: string;
  namespace: string;
  identity: string;
  durationSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Every tunable's default, as its environment variable spells it (from the settings table). The
 * CDK stack sets a variable only where its value differs from these.
 */
export const SETTING_DEFAULTS = Object.fromEntries(
  SETTINGS.filter((s) => s.default !== undefined).map((s) => [s.name, s.default as string]),
) as Readonly<Record<SettingName, string>>;

/** Reads and validates the configuration; throws `ConfigError` listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined>, runtime: Runtime = 'lambda'): Config {
  const given = withoutBlanks(env);
  // Parsed once per execution environment: zod's compiled fast path (a `new Function` per object
  // schema) would cost more to build than this one parse of the settings' object.
  const parsed = ENV_SCHEMA.safeParse({ ...SETTING_DEFAULTS, ...given }, { jitless: true });
  const problems = parsed.success ? runtimeProblems(parsed.data, runtime) : problemsOf(parsed.error, given);
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return toConfig(parsed.data, runtime);
}

/** One sentence per variable: what it takes, with an example, and what it was given. */
function problemsOf(error: z.ZodError, given: Record<string, string>): string[] {
  const names = [...new Set(error.issues.map((issue) => String(issue.path[0])))];
  return names.map((name) => {
    const expected = SETTING_SPECS[name as SettingName].expected;
    return name in given ? `${name}: ${expected}; got ${JSON.stringify(given[name])}` : `${name}: required: ${expected}`;
  });
}

/** An empty variable means "not set" (CloudFormation and shells both produce them). */
function withoutBlanks(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => (entry[1] ?? '').trim() !== ''));
}

function runtimeProblems(env: Env, runtime: Runtime): string[] {
  const tagProblems = (['VOLUME_TAGS', 'INSTANCE_TAGS'] as const).flatMap((name) =>
    parseTagList(env[name], name === 'VOLUME_TAGS' ? 'volume' : 'instance', env.CLUSTER_NAME ?? 'local').problems.map(
      (problem) => `${name}: ${problem}; takes ${SETTING_SPECS[name].expected}`,
    ),
  );
  const attachers = secondAttacher(env) && env.WRITES === 'on' ? [SECOND_ATTACHER] : [];
  if (runtime === 'local') return [...tagProblems, ...attachers];
  const missing = (['CLUSTER_NAME', 'CLUSTER_ENDPOINT', 'CLUSTER_CA'] as const).filter((name) => env[name] === undefined);
  return [...tagProblems, ...missing.map((name) => `${name}: required in Lambda: ${SETTING_SPECS[name].expected}`), ...attachers];
}

/** Attacher mode beside a csi-attacher that nothing fences: writing would make two live attachers (DESIGN §8). */
function secondAttacher(env: Env): boolean {
  return env.OPERATING_MODE === 'attacher' && env.LEASE_FENCE === 'off' && env.SIDECAR_GONE === 'false';
}

const SECOND_ATTACHER =
  "WRITES: on in attacher mode needs LEASE_FENCE=on (the csi-attacher sidecar's Lease keeps it a standby) or SIDECAR_GONE=true (no csi-attacher runs); otherwise two attachers act on every VolumeAttachment. Unset, WRITES is off there (the shadow step, docs/eks.md)";

/** WRITES unset: on, except where writing would make a second live attacher (then the shadow). */
function writesOf(env: Env): boolean {
  return (env.WRITES ?? (secondAttacher(env) ? 'off' : 'on')) === 'on';
}

function toConfig(env: Env, runtime: Runtime): Config {
  const useEndpoint =
    env.CLUSTER_ENDPOINT !== undefined && env.CLUSTER_CA !== undefined && (runtime === 'lambda' || env.KUBECONFIG === undefined);
  return {
    tableName: env.TABLE_NAME,
    clusterName: env.CLUSTER_NAME ?? 'local',
    tagScheme: {
      volume: parseTagList(env.VOLUME_TAGS, 'volume', env.CLUSTER_NAME ?? 'local').tags,
      instance: parseTagList(env.INSTANCE_TAGS, 'instance', env.CLUSTER_NAME ?? 'local').tags,
    },
    kmsKeyArns: env.KMS_KEY_ARNS ?? [],
    kube: useEndpoint
      ? { kind: 'eks', endpoint: env.CLUSTER_ENDPOINT as string, caData: env.CLUSTER_CA as string }
      : { kind: 'kubeconfig', path: env.KUBECONFIG },
    region: env.AWS_REGION,
    endpoints: {
      ...(env.AWS_ENDPOINT_URL_EC2 === undefined ? {} : { ec2: env.AWS_ENDPOINT_URL_EC2 }),
      ...(env.AWS_ENDPOINT_URL_DYNAMODB === undefined ? {} : { dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB }),
    },
    ...localCredentials(env, runtime),
    mode: env.OPERATING_MODE,
    writes: writesOf(env),
    sidecarGone: env.SIDECAR_GONE === 'true',
    attacherWaitMs: env.ATTACHER_POLL_SECONDS * 1000,
    syncPeriodMs: env.SYNC_PERIOD_SECONDS * 1000,
    coverage: { completeEveryMs: env.COMPLETE_PASS_SECONDS * 1000, verifySlices: env.VERIFY_SLICES },
    maxAttachWaitMs: env.MAX_ATTACH_WAIT_SECONDS * 1000,
    maxConcurrentOperations: env.MAX_CONCURRENT_OPERATIONS,
    kubeApi: { qps: env.KUBE_API_QPS, burst: env.KUBE_API_BURST },
    outOfServiceTaint: env.OUT_OF_SERVICE_TAINT === 'on',
    outOfServiceFollowMs: env.OUT_OF_SERVICE_FOLLOW_SECONDS * 1000,
    ...leaseFence(env),
    sidecarLease: { name: env.LEASE_FENCE_NAME, namespace: env.LEASE_FENCE_NAMESPACE },
    ec2Budget: {
      tableName: env.EC2_BUDGET_TABLE_NAME ?? env.TABLE_NAME,
      sizes: {
        AttachVolume: { ratePerSecond: env.EC2_ATTACH_VOLUME_RATE, burst: env.EC2_ATTACH_VOLUME_BURST },
        DetachVolume: { ratePerSecond: env.EC2_DETACH_VOLUME_RATE, burst: env.EC2_DETACH_VOLUME_BURST },
      },
    },
    plan: {
      ...DEFAULT_PLAN_CONFIG,
      maxWaitForUnmountMs: env.MAX_WAIT_FOR_UNMOUNT_SECONDS === 'disabled' ? null : env.MAX_WAIT_FOR_UNMOUNT_SECONDS * 1000,
      leaseMarginMs: env.LEASE_MARGIN_SECONDS * 1000,
      stuckAttachMs: env.STUCK_ATTACH_SECONDS * 1000,
      massDetachGuard:
        env.MASS_DETACH_MAX_FRACTION === 'disabled'
          ? null
          : { maxFraction: env.MASS_DETACH_MAX_FRACTION, minAttached: env.MASS_DETACH_MIN_ATTACHED },
      massDetachWindowMs: env.MASS_DETACH_WINDOW_SECONDS * 1000,
    },
    serviceName: env.POWERTOOLS_SERVICE_NAME,
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE,
    logLevel: env.POWERTOOLS_LOG_LEVEL,
  };
}

function leaseFence(env: Env): Pick<Config, 'leaseFence'> {
  if (env.LEASE_FENCE === 'off') return {};
  return {
    leaseFence: {
      name: env.LEASE_FENCE_NAME,
      namespace: env.LEASE_FENCE_NAMESPACE,
      identity: env.LEASE_FENCE_IDENTITY ?? `${env.POWERTOOLS_SERVICE_NAME}/${env.CLUSTER_NAME ?? 'local'}`,
      durationSeconds: env.LEASE_FENCE_DURATION_SECONDS,
    },
  };
}

/** A local run's static keys; in Lambda the default provider chain keeps refreshing the role's. */
function localCredentials(env: Env, runtime: Runtime): Pick<Config, 'credentials'> {
  if (runtime !== 'local' || env.AWS_ACCESS_KEY_ID === undefined || env.AWS_SECRET_ACCESS_KEY === undefined) return {};
  const session = env.AWS_SESSION_TOKEN === undefined ? {} : { sessionToken: env.AWS_SESSION_TOKEN };
  return { credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...session } };
}

/** How long a pass waits for one detach to reach `detached` before leaving it to the next pass (not a setting). */
const MAX_DETACH_WAIT_MS = 60_000;
/** Time a pass keeps back before its deadline to write down what it started (not a setting). */
const RESERVE_MS = 3_000;

/** What every pass is handed: the configuration's tunables, with the two that are not settings. */
export function reconcileSettings(config: Config): ReconcileSettings {
  return {
    plan: config.plan,
    syncPeriodMs: config.syncPeriodMs,
    coverage: config.coverage,
    maxConcurrentOperations: config.maxConcurrentOperations,
    maxAttachWaitMs: config.maxAttachWaitMs,
    maxDetachWaitMs: MAX_DETACH_WAIT_MS,
    reserveMs: RESERVE_MS,
    outOfServiceTaint: config.outOfServiceTaint,
    attacherWaitMs: config.attacherWaitMs,
    outOfServiceFollowMs: config.outOfServiceFollowMs,
    kmsKeyArns: config.kmsKeyArns,
  };
}
