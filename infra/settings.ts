/**
 * The stack's settings, read once from CDK context (cdk.json or `-c key=value`) and validated.
 * Values given with `-c` arrive as strings, so numbers are coerced; every problem is reported
 * at once with the context key it belongs to, before any construct is built.
 */
import { z } from 'zod';

export interface StackSettings {
  /** EKS cluster name; also names the stack, the default bus and the default tag key. */
  clusterName: string;
  /** https URL of the cluster's API server (`CLUSTER_ENDPOINT`). */
  apiEndpoint: string;
  /** Base64 of the cluster CA's PEM (`CLUSTER_CA`), as `aws eks describe-cluster` returns it. */
  certificateAuthority: string;
  /** EventBridge Scheduler expression of the full pass, e.g. `rate(1 minute)`. */
  schedule: string;
  /** Reserved concurrency of each function (also the SQS pollers' maximum concurrency). */
  reservedConcurrency: number;
  syncPeriodSeconds: number;
  /** Force-detach timeout for a not-Ready node's volumes, or `disabled`. */
  maxWaitForUnmountSeconds: number | 'disabled';
  /** Custom bus the event exporter writes to. */
  eventBusName: string;
  /** EC2 attach/detach is allowed only on volumes and instances carrying this tag key. */
  clusterTagKey: string;
  /** Existing SNS topic that alarms notify; without it the stack creates one (output AlarmTopicArn). */
  alarmTopicArn?: string;
  /** Alarm when no full pass has completed for this many minutes. */
  fullPassStaleMinutes: number;
}

/** The keys read from context; anything else in context is CDK's own. */
const CONTEXT_KEYS = [
  'clusterName',
  'apiEndpoint',
  'certificateAuthority',
  'schedule',
  'reservedConcurrency',
  'syncPeriodSeconds',
  'maxWaitForUnmountSeconds',
  'eventBusName',
  'clusterTagKey',
  'alarmTopicArn',
  'fullPassStaleMinutes',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Empty strings (cdk.json placeholders, `-c key=`) mean "not set". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' || value === null ? undefined : value), schema.optional());

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);

const pemCertificate = z
  .string()
  .refine(
    (value) => /^[A-Za-z0-9+/=\s]+$/.test(value) && Buffer.from(value, 'base64').toString('utf8').includes('-----BEGIN CERTIFICATE-----'),
    'must be the base64 of a PEM certificate (EKS certificateAuthority.data)',
  );

const schema = z.object({
  // EKS cluster names: 1-100 characters, alphanumerics, hyphens and underscores, starting alphanumeric.
  clusterName: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'must be an EKS cluster name'),
  apiEndpoint: z.url({ protocol: /^https$/, error: 'must be an https URL' }),
  // The functions refuse to start without it: the EKS API server's certificate is signed by it.
  certificateAuthority: pemCertificate,
  schedule: z
    .string()
    .regex(/^(rate|cron)\(.+\)$/, 'must be an EventBridge Scheduler rate(…) or cron(…) expression')
    .default('rate(1 minute)'),
  // The SQS event source's maximum concurrency cannot be below 2.
  reservedConcurrency: positiveInt(1000).min(2, "must be at least 2 (the SQS pollers' floor)").default(5),
  syncPeriodSeconds: positiveInt(86_400).default(60),
  maxWaitForUnmountSeconds: z.union([z.literal('disabled'), positiveInt(86_400)]).default(360),
  eventBusName: optional(z.string().regex(/^(?!default$)[/.\-_A-Za-z0-9]{1,256}$/, 'must be a custom EventBridge bus name')),
  clusterTagKey: optional(z.string().min(1).max(128)),
  alarmTopicArn: optional(z.string().regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'must be an SNS topic ARN')),
  fullPassStaleMinutes: positiveInt(1440).min(2, 'must be at least 2').default(10),
});

/** Reads and validates the settings; `lookup` is e.g. `(key) => app.node.tryGetContext(key)`. */
export function readSettings(lookup: (key: ContextKey) => unknown): StackSettings {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, lookup(key)]));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid CDK context for the attach/detach stack:\n${z.prettifyError(parsed.error)}`);
  }
  const { eventBusName, clusterTagKey, ...rest } = parsed.data;
  return {
    ...rest,
    eventBusName: eventBusName ?? `${rest.clusterName}-kubernetes-events`,
    clusterTagKey: clusterTagKey ?? `kubernetes.io/cluster/${rest.clusterName}`,
  };
}
