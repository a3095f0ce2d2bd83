/**
 * The stack's settings, read once from CDK context (cdk.json or `-c key=value`) and validated.
 * Values given with `-c` arrive as strings, so numbers are coerced; every problem is reported
 * at once with the context key it belongs to, before any construct is built.
 */
import { z } from 'zod';
import { DEFAULT_INSTANCE_TAGS, DEFAULT_VOLUME_TAGS, parseTagList } from '../lambda/core/tag-scheme.js';
import { FULL_PASS_SIZE, WATCHER_SIZE } from './function-sizes.js';

/**
 * `controller`: we are the attach/detach controller (kcm's is off). `attacher`: kcm's
 * attach/detach controller creates and deletes VolumeAttachments and we replace the EBS CSI
 * driver's csi-attacher (DESIGN §3a); the mode EKS needs.
 */
const OPERATING_MODES = ['controller', 'attacher'] as const;
export type OperatingMode = (typeof OPERATING_MODES)[number];

/** Whether the stack creates a VPC endpoint or the VPC already has one the functions can use. */
const ENDPOINT_CHOICES = ['create', 'existing'] as const;
type EndpointChoice = (typeof ENDPOINT_CHOICES)[number];

/** Functions inside the cluster's VPC, for clusters whose API endpoint is private. */
export interface VpcSettings {
  vpcId: string;
  /** Private subnets the functions' network interfaces go in (two or more zones for availability). */
  subnetIds: string[];
  /** The EKS cluster security group: the stack lets the functions reach the API on 443 through it. */
  clusterSecurityGroupId?: string;
  ec2Endpoint: EndpointChoice;
  dynamoDbEndpoint: EndpointChoice;
  /** Route tables of the subnets, for the DynamoDB gateway endpoint (needed when it is created). */
  routeTableIds: string[];
}

export interface StackSettings {
  /** Operating mode (`OPERATING_MODE`); `controller` when unset, for stacks deployed before attacher mode. */
  mode: OperatingMode;
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
  /** The watcher (list+watch, a targeted pass per change), started by the schedule. */
  watcher: 'on' | 'off';
  /** The watcher function's memory. */
  watcherMemoryMb: number;
  /** The event exporter's bus, rule, queue and function; off by default while the watcher runs (README, "Triggers"). */
  eventExporter: 'on' | 'off';
  /** Custom bus the event exporter writes to. */
  eventBusName: string;
  /**
   * The tags the role requires (VOLUME_TAGS / INSTANCE_TAGS): attach and detach only where the volume
   * carries one of `volumeTags` and the instance one of `instanceTags`, key and value (core/tag-scheme.ts).
   */
  volumeTags: string;
  instanceTags: string;
  /** Customer-managed KMS keys of encrypted volumes: the role may create grants on them for EC2. */
  kmsKeyArns: string[];
  /** Existing SNS topic that alarms notify; without it the stack creates one (output AlarmTopicArn). */
  alarmTopicArn?: string;
  /** Alarm when no full pass has completed for this many minutes. */
  fullPassStaleMinutes: number;
  /** The full pass function's memory (and so CPU): more for clusters past 10,000 nodes (README, "Performance"). */
  fullPassMemoryMb: number;
  /** Unset: the functions are outside any VPC and reach a public API endpoint. */
  vpc?: VpcSettings;
  /** A table shared by clusters of one account and region for one EC2 budget (`EC2_BUDGET_TABLE_NAME`). */
  ec2BudgetTableName?: string;
  /** The out-of-service taint on dead instances' nodes (`OUT_OF_SERVICE_TAINT`); `on` needs infra/k8s/rbac-taint.yaml. */
  outOfServiceTaint: 'on' | 'off';
  /** The lease fence on the EBS CSI csi-attacher's Lease (`LEASE_FENCE`, docs/lease-fence.md); `on` needs infra/k8s/rbac-lease-fence.yaml. */
  leaseFence: 'on' | 'off';
  /** The sidecar's Lease the fence holds (`LEASE_FENCE_NAMESPACE`, `LEASE_FENCE_NAME`): where the EBS CSI controller runs. */
  leaseFenceNamespace: string;
  leaseFenceName: string;
  /**
   * `off`: every pass is a dry run (`WRITES`), the shadow step of the EKS handover (docs/eks.md).
   * In attacher mode `off` unless the fence is on or `sidecarGone` says no csi-attacher runs.
   */
  writes: 'on' | 'off';
  /** `SIDECAR_GONE`: no EBS CSI csi-attacher runs (removed, or stopped for good), so attacher mode may write without the fence. */
  sidecarGone: boolean;
}

/** The keys read from context; anything else in context is CDK's own. */
const CONTEXT_KEYS = [
  'mode',
  'clusterName',
  'apiEndpoint',
  'certificateAuthority',
  'schedule',
  'reservedConcurrency',
  'syncPeriodSeconds',
  'maxWaitForUnmountSeconds',
  'watcher',
  'watcherMemoryMb',
  'eventExporter',
  'eventBusName',
  'volumeTags',
  'instanceTags',
  'kmsKeyArns',
  'clusterTagKey',
  'alarmTopicArn',
  'fullPassStaleMinutes',
  'fullPassMemoryMb',
  'vpcId',
  'subnetIds',
  'clusterSecurityGroupId',
  'ec2Endpoint',
  'dynamoDbEndpoint',
  'routeTableIds',
  'ec2BudgetTableName',
  'outOfServiceTaint',
  'leaseFence',
  'leaseFenceNamespace',
  'leaseFenceName',
  'writes',
  'sidecarGone',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Empty strings (cdk.json placeholders, `-c key=`) mean "not set". */
const blankAsUnset = (value: unknown) => (value === '' || value === null ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUnset, schema.optional());
/** One of `choices`, `fallback` when unset or blank. */
const choice = <const T extends readonly [string, ...string[]]>(choices: T, fallback: T[number]) =>
  z.preprocess(blankAsUnset, z.enum(choices).default(fallback as never));

/** `-c key=a,b` arrives as one string; cdk.json may hold a list. */
const idList = (pattern: RegExp, what: string) =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((id) => id.trim())
            .filter((id) => id !== '')
        : value,
    z.array(z.string().regex(pattern, `must be ${what}`)).min(1),
  );

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);

const pemCertificate = z
  .string()
  .refine(
    (value) => /^[A-Za-z0-9+/=\s]+$/.test(value) && Buffer.from(value, 'base64').toString('utf8').includes('-----BEGIN CERTIFICATE-----'),
    'must be the base64 of a PEM certificate (EKS certificateAuthority.data)',
  );

const schema = z.object({
  mode: choice(OPERATING_MODES, 'controller'),
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
  watcher: choice(['on', 'off'], 'on'),
  watcherMemoryMb: positiveInt(10_240).min(256, 'must be at least 256 (MB)').default(WATCHER_SIZE.memoryMb),
  // Unset: off while the watcher runs (it sees every change first), on without it (the only fast path then).
  eventExporter: optional(z.enum(['on', 'off'])),
  eventBusName: optional(z.string().regex(/^(?!default$)[/.\-_A-Za-z0-9]{1,256}$/, 'must be a custom EventBridge bus name')),
  volumeTags: z.preprocess(blankAsUnset, z.string().default(DEFAULT_VOLUME_TAGS)),
  instanceTags: z.preprocess(blankAsUnset, z.string().default(DEFAULT_INSTANCE_TAGS)),
  kmsKeyArns: optional(
    idList(/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, 'KMS key ARNs (arn:aws:kms:…:key/…, comma-separated)'),
  ),
  // Replaced by volumeTags and instanceTags: a bare key named no value, and any key could span clusters.
  clusterTagKey: optional(z.never({ error: 'is replaced by volumeTags and instanceTags (key and value; infra/README.md)' })),
  alarmTopicArn: optional(z.string().regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'must be an SNS topic ARN')),
  fullPassStaleMinutes: positiveInt(1440).min(2, 'must be at least 2').default(10),
  // Up to Lambda's largest; the bench measures full passes from 1,024 MB up, nothing smaller.
  fullPassMemoryMb: positiveInt(10_240).min(1024, 'must be at least 1024 (MB)').default(FULL_PASS_SIZE.memoryMb),
  vpcId: optional(z.string().regex(/^vpc-[0-9a-f]{8,17}$/, 'must be a VPC id (vpc-…)')),
  subnetIds: optional(idList(/^subnet-[0-9a-f]{8,17}$/, 'subnet ids (subnet-…, comma-separated)')),
  clusterSecurityGroupId: optional(z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group id (sg-…)')),
  ec2Endpoint: choice(ENDPOINT_CHOICES, 'create'),
  dynamoDbEndpoint: choice(ENDPOINT_CHOICES, 'create'),
  routeTableIds: optional(idList(/^rtb-[0-9a-f]{8,17}$/, 'route table ids (rtb-…, comma-separated)')),
  // DynamoDB table names: 3-255 of letters, digits, `_`, `-` and `.`.
  ec2BudgetTableName: optional(z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name')),
  outOfServiceTaint: choice(['on', 'off'], 'on'),
  leaseFence: choice(['on', 'off'], 'off'),
  // Kubernetes object names: a DNS-1123 label for the namespace, a DNS-1123 subdomain for the Lease.
  leaseFenceNamespace: z.preprocess(blankAsUnset, z.string().regex(DNS_LABEL, 'must be a namespace name').default('kube-system')),
  leaseFenceName: z.preprocess(
    blankAsUnset,
    z.string().max(253).regex(DNS_SUBDOMAIN, 'must be a Lease name').default('external-attacher-leader-ebs-csi-aws-com'),
  ),
  // Unset: derived from the mode (safeWrites), so attacher mode starts as a shadow.
  writes: optional(z.enum(['on', 'off'])),
  sidecarGone: z.preprocess(blankAsUnset, z.enum(['true', 'false']).default('false')),
});

type Parsed = z.output<typeof schema>;

/** The VPC keys only make sense together: a VPC needs subnets, and a gateway endpoint needs route tables. */
function vpcProblems(data: Parsed): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const given = (['subnetIds', 'clusterSecurityGroupId', 'routeTableIds'] as const).filter((key) => data[key] !== undefined);
  if (data.vpcId === undefined) {
    return given.map((key) => ({ path: key, message: 'needs vpcId (the functions are only placed in a VPC when vpcId is set)' }));
  }
  if (data.subnetIds === undefined)
    problems.push({ path: 'subnetIds', message: 'is required with vpcId (the private subnets of the functions)' });
  if (data.dynamoDbEndpoint === 'create' && data.routeTableIds === undefined) {
    problems.push({
      path: 'routeTableIds',
      message: "is required to create the DynamoDB gateway endpoint (the subnets' route tables); or set dynamoDbEndpoint=existing",
    });
  }
  return problems;
}

/**
 * Attacher mode never deploys as a second live attacher (DESIGN §8): writes go on only behind the
 * lease fence, or when the operator says no csi-attacher sidecar runs (docs/eks.md).
 */
function secondAttacher(data: Parsed): boolean {
  return data.mode === 'attacher' && data.leaseFence === 'off' && data.sidecarGone === 'false';
}

function safeWrites(data: Parsed): 'on' | 'off' {
  return data.writes ?? (secondAttacher(data) ? 'off' : 'on');
}

function writesProblems(data: Parsed): { path: string; message: string }[] {
  if (data.writes !== 'on' || !secondAttacher(data)) return [];
  return [
    {
      path: 'writes',
      message:
        "writes=on in attacher mode needs leaseFence=on (the csi-attacher sidecar's Lease keeps it a standby) or sidecarGone=true (no csi-attacher runs); otherwise two attachers act on every VolumeAttachment (docs/eks.md)",
    },
  ];
}

const checkedSchema = schema.superRefine((data, ctx) => {
  for (const problem of [...vpcProblems(data), ...writesProblems(data)])
    ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
  for (const [path, side] of [
    ['volumeTags', 'volume'],
    ['instanceTags', 'instance'],
  ] as const) {
    for (const problem of parseTagList(data[path], side, data.clusterName).problems)
      ctx.addIssue({ code: 'custom', path: [path], message: problem });
  }
});

function vpcOf(data: Parsed): VpcSettings | undefined {
  if (data.vpcId === undefined || data.subnetIds === undefined) return undefined;
  return {
    vpcId: data.vpcId,
    subnetIds: data.subnetIds,
    clusterSecurityGroupId: data.clusterSecurityGroupId,
    ec2Endpoint: data.ec2Endpoint,
    dynamoDbEndpoint: data.dynamoDbEndpoint,
    routeTableIds: data.routeTableIds ?? [],
  };
}

/** Reads and validates the settings; `lookup` is e.g. `(key) => app.node.tryGetContext(key)`. */
export function readSettings(lookup: (key: ContextKey) => unknown): StackSettings {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, lookup(key)]));
  const parsed = checkedSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid CDK context for the attach/detach stack:\n${z.prettifyError(parsed.error)}`);
  }
  const data = parsed.data;
  return {
    mode: data.mode,
    clusterName: data.clusterName,
    apiEndpoint: data.apiEndpoint,
    certificateAuthority: data.certificateAuthority,
    schedule: data.schedule,
    reservedConcurrency: data.reservedConcurrency,
    syncPeriodSeconds: data.syncPeriodSeconds,
    maxWaitForUnmountSeconds: data.maxWaitForUnmountSeconds,
    watcher: data.watcher,
    watcherMemoryMb: data.watcherMemoryMb,
    eventExporter: data.eventExporter ?? (data.watcher === 'on' ? 'off' : 'on'),
    eventBusName: data.eventBusName ?? `${data.clusterName}-kubernetes-events`,
    volumeTags: data.volumeTags,
    instanceTags: data.instanceTags,
    kmsKeyArns: data.kmsKeyArns ?? [],
    alarmTopicArn: data.alarmTopicArn,
    fullPassStaleMinutes: data.fullPassStaleMinutes,
    fullPassMemoryMb: data.fullPassMemoryMb,
    vpc: vpcOf(data),
    ec2BudgetTableName: data.ec2BudgetTableName,
    outOfServiceTaint: data.outOfServiceTaint,
    leaseFence: data.leaseFence,
    leaseFenceNamespace: data.leaseFenceNamespace,
    leaseFenceName: data.leaseFenceName,
    writes: safeWrites(data),
    sidecarGone: data.sidecarGone === 'true',
  };
}
