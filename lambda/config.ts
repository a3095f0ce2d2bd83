/**
 * The controller's configuration, read once per cold start from the environment and
 * validated with zod so a mistake reads as one clear sentence per variable
 * (the variables are pinned in the runtime contract shared with the CDK stack).
 */
import { z } from 'zod';
import { DEFAULT_PLAN_CONFIG, type PlanConfig } from './core/config.js';
import { METRICS_NAMESPACE } from './observability/metric-names.js';

/** Where the pass runs: in Lambda the EKS endpoint is mandatory; locally a kubeconfig may stand in. */
export type Runtime = 'lambda' | 'local';

export interface Config {
  tableName: string;
  clusterName: string;
  /** How the Kubernetes API is reached: EKS endpoint + CA + token, or a kubeconfig file (default path when undefined). */
  /** EKS: `caData` is the cluster CA as EKS hands it out (base64 of the PEM). */
  kube: { kind: 'eks'; endpoint: string; caData: string } | { kind: 'kubeconfig'; path?: string };
  region: string;
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

const text = z.string().trim().min(1, 'must not be empty');
const positiveInt = (fallback: number) => z.coerce.number().int('must be a whole number').positive('must be positive').default(fallback);

const EnvSchema = z.object({
  TABLE_NAME: text,
  CLUSTER_NAME: text.optional(),
  CLUSTER_ENDPOINT: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
  CLUSTER_CA: z.base64('must be base64 (the PEM of the cluster CA)').optional(),
  KUBECONFIG: text.optional(),
  AWS_REGION: text,
  SYNC_PERIOD_SECONDS: positiveInt(60),
  MAX_WAIT_FOR_UNMOUNT_SECONDS: z.union([z.literal('disabled'), positiveInt(360)]).default(360),
  LEASE_SECONDS: positiveInt(DEFAULT_PLAN_CONFIG.leaseMs / 1000),
  MAX_CONCURRENT_OPERATIONS: positiveInt(10),
  EC2_MUTATING_CALLS_PER_SECOND: positiveInt(4),
  MASS_DETACH_MAX_FRACTION: z.union([z.literal('disabled'), z.coerce.number().gt(0, 'must be above 0').max(1, 'must be at most 1')]).default(0.5),
  MASS_DETACH_MIN_ATTACHED: z.coerce.number().int('must be a whole number').nonnegative('must not be negative').default(10),
  POWERTOOLS_SERVICE_NAME: text.default('ebs-attach-detach'),
  POWERTOOLS_METRICS_NAMESPACE: text.default(METRICS_NAMESPACE),
  POWERTOOLS_LOG_LEVEL: text.default('INFO'),
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
  const useEndpoint = env.CLUSTER_ENDPOINT !== undefined && env.CLUSTER_CA !== undefined && (runtime === 'lambda' || env.KUBECONFIG === undefined);
  return {
    tableName: env.TABLE_NAME,
    clusterName: env.CLUSTER_NAME ?? 'local',
    kube: useEndpoint
      ? { kind: 'eks', endpoint: env.CLUSTER_ENDPOINT as string, caData: env.CLUSTER_CA as string }
      : { kind: 'kubeconfig', path: env.KUBECONFIG },
    region: env.AWS_REGION,
    syncPeriodMs: env.SYNC_PERIOD_SECONDS * 1000,
    maxConcurrentOperations: env.MAX_CONCURRENT_OPERATIONS,
    ec2MutatingCallsPerSecond: env.EC2_MUTATING_CALLS_PER_SECOND,
    plan: {
      ...DEFAULT_PLAN_CONFIG,
      maxWaitForUnmountMs: env.MAX_WAIT_FOR_UNMOUNT_SECONDS === 'disabled' ? null : env.MAX_WAIT_FOR_UNMOUNT_SECONDS * 1000,
      leaseMs: env.LEASE_SECONDS * 1000,
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
