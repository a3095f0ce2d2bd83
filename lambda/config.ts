/**
 * The controller's configuration, read once per cold start from the environment and
 * validated with zod so a mistake reads as one clear sentence per variable
 * (the variables are pinned in the runtime contract shared with the CDK stack).
 */
import { z } from 'zod';
import { DEFAULT_PLAN_CONFIG, type PlanConfig } from './core/config.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from './observability/metric-names.js';

/** Where the pass runs: in Lambda the EKS endpoint is mandatory; locally a kubeconfig may stand in. */
export type Runtime = 'lambda' | 'local';

export interface Config {
  tableName: string;
  clusterName: string;
  /** How the Kubernetes API is reached: EKS endpoint + CA + token, or a kubeconfig file (default path when undefined). */
  /** EKS: `caData` is the cluster CA as EKS hands it out (base64 of the PEM). */
  kube: { kind: 'eks'; endpoint: string; caData: string } | { kind: 'kubeconfig'; path?: string };
  region: string;
  /** Local runs point the SDK clients at local servers; in Lambda both are unset. */
  endpoints: { ec2?: string; dynamodb?: string };
  /** Static credentials of a local run; in Lambda the role's come from the default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  syncPeriodMs: number;
  maxConcurrentOperations: number;
  ec2MutatingCallsPerSecond: number;
  plan: PlanConfig;
  serviceName: string;
  metricsNamespace: string;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Every tunable's default, as its environment variable spells it. The CDK stack sets a variable
 * only where its value differs from these.
 */
export const SETTING_DEFAULTS = {
  SYNC_PERIOD_SECONDS: '60',
  MAX_WAIT_FOR_UNMOUNT_SECONDS: '360',
  LEASE_MARGIN_SECONDS: String(DEFAULT_PLAN_CONFIG.leaseMarginMs / 1000),
  MAX_CONCURRENT_OPERATIONS: '10',
  EC2_MUTATING_CALLS_PER_SECOND: '4',
  MASS_DETACH_MAX_FRACTION: '0.5',
  MASS_DETACH_MIN_ATTACHED: '10',
  POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
  POWERTOOLS_LOG_LEVEL: 'INFO',
} as const;

const text = z.string().trim().min(1, 'must not be empty');
const wholeNumber = z.coerce.number().int('must be a whole number');
const positiveInt = (fallback: string) => wholeNumber.positive('must be positive').default(Number(fallback));
const url = z.url({ error: 'must be a URL' });

const EnvSchema = z.object({
  TABLE_NAME: text,
  CLUSTER_NAME: text.optional(),
  CLUSTER_ENDPOINT: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
  CLUSTER_CA: z.base64('must be base64 (the PEM of the cluster CA)').optional(),
  KUBECONFIG: text.optional(),
  AWS_REGION: text,
  AWS_ENDPOINT_URL_EC2: url.optional(),
  AWS_ENDPOINT_URL_DYNAMODB: url.optional(),
  AWS_ACCESS_KEY_ID: text.optional(),
  AWS_SECRET_ACCESS_KEY: text.optional(),
  AWS_SESSION_TOKEN: text.optional(),
  SYNC_PERIOD_SECONDS: positiveInt(SETTING_DEFAULTS.SYNC_PERIOD_SECONDS),
  MAX_WAIT_FOR_UNMOUNT_SECONDS: z
    .union([z.literal('disabled'), positiveInt(SETTING_DEFAULTS.MAX_WAIT_FOR_UNMOUNT_SECONDS)])
    .default(Number(SETTING_DEFAULTS.MAX_WAIT_FOR_UNMOUNT_SECONDS)),
  LEASE_MARGIN_SECONDS: positiveInt(SETTING_DEFAULTS.LEASE_MARGIN_SECONDS),
  MAX_CONCURRENT_OPERATIONS: positiveInt(SETTING_DEFAULTS.MAX_CONCURRENT_OPERATIONS),
  EC2_MUTATING_CALLS_PER_SECOND: positiveInt(SETTING_DEFAULTS.EC2_MUTATING_CALLS_PER_SECOND),
  MASS_DETACH_MAX_FRACTION: z
    .union([z.literal('disabled'), z.coerce.number().gt(0, 'must be above 0').max(1, 'must be at most 1')])
    .default(Number(SETTING_DEFAULTS.MASS_DETACH_MAX_FRACTION)),
  MASS_DETACH_MIN_ATTACHED: wholeNumber.nonnegative('must not be negative').default(Number(SETTING_DEFAULTS.MASS_DETACH_MIN_ATTACHED)),
  POWERTOOLS_SERVICE_NAME: text.default(SETTING_DEFAULTS.POWERTOOLS_SERVICE_NAME),
  POWERTOOLS_METRICS_NAMESPACE: text.default(SETTING_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE),
  POWERTOOLS_LOG_LEVEL: text.default(SETTING_DEFAULTS.POWERTOOLS_LOG_LEVEL),
});

type Env = z.infer<typeof EnvSchema>;

/** Reads and validates the configuration; throws `ConfigError` listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined>, runtime: Runtime = 'lambda'): Config {
  const parsed = EnvSchema.safeParse(withoutBlanks(env));
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  if (parsed.success) problems.push(...runtimeProblems(parsed.data, runtime));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return toConfig(parsed.data, runtime);
}

/** An empty variable means "not set" (CloudFormation and shells both produce them). */
function withoutBlanks(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => (entry[1] ?? '').trim() !== ''));
}

function runtimeProblems(env: Env, runtime: Runtime): string[] {
  if (runtime === 'local') return [];
  const problems: string[] = [];
  if (env.CLUSTER_NAME === undefined) problems.push('CLUSTER_NAME: required (the EKS cluster name signs the API token)');
  if (env.CLUSTER_ENDPOINT === undefined) problems.push('CLUSTER_ENDPOINT: required in Lambda (https URL of the EKS API server)');
  if (env.CLUSTER_CA === undefined) problems.push('CLUSTER_CA: required in Lambda (base64 PEM of the cluster CA)');
  return problems;
}

function toConfig(env: Env, runtime: Runtime): Config {
  const useEndpoint =
    env.CLUSTER_ENDPOINT !== undefined && env.CLUSTER_CA !== undefined && (runtime === 'lambda' || env.KUBECONFIG === undefined);
  return {
    tableName: env.TABLE_NAME,
    clusterName: env.CLUSTER_NAME ?? 'local',
    kube: useEndpoint
      ? { kind: 'eks', endpoint: env.CLUSTER_ENDPOINT as string, caData: env.CLUSTER_CA as string }
      : { kind: 'kubeconfig', path: env.KUBECONFIG },
    region: env.AWS_REGION,
    endpoints: {
      ...(env.AWS_ENDPOINT_URL_EC2 === undefined ? {} : { ec2: env.AWS_ENDPOINT_URL_EC2 }),
      ...(env.AWS_ENDPOINT_URL_DYNAMODB === undefined ? {} : { dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB }),
    },
    ...localCredentials(env, runtime),
    syncPeriodMs: env.SYNC_PERIOD_SECONDS * 1000,
    maxConcurrentOperations: env.MAX_CONCURRENT_OPERATIONS,
    ec2MutatingCallsPerSecond: env.EC2_MUTATING_CALLS_PER_SECOND,
    plan: {
      ...DEFAULT_PLAN_CONFIG,
      maxWaitForUnmountMs: env.MAX_WAIT_FOR_UNMOUNT_SECONDS === 'disabled' ? null : env.MAX_WAIT_FOR_UNMOUNT_SECONDS * 1000,
      leaseMarginMs: env.LEASE_MARGIN_SECONDS * 1000,
      massDetachGuard:
        env.MASS_DETACH_MAX_FRACTION === 'disabled'
          ? null
          : { maxFraction: env.MASS_DETACH_MAX_FRACTION, minAttached: env.MASS_DETACH_MIN_ATTACHED },
    },
    serviceName: env.POWERTOOLS_SERVICE_NAME,
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE,
    logLevel: env.POWERTOOLS_LOG_LEVEL,
  };
}

/** A local run's static keys; in Lambda the default provider chain keeps refreshing the role's. */
function localCredentials(env: Env, runtime: Runtime): Pick<Config, 'credentials'> {
  if (runtime !== 'local' || env.AWS_ACCESS_KEY_ID === undefined || env.AWS_SECRET_ACCESS_KEY === undefined) return {};
  const session = env.AWS_SESSION_TOKEN === undefined ? {} : { sessionToken: env.AWS_SESSION_TOKEN };
  return { credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...session } };
}
