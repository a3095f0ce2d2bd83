/**
 * Every environment variable the controller reads, in one table: its schema, its default, what it
 * takes (with an example) and what it means. The configuration loader parses with these schemas,
 * configuration errors quote `expected`, and the README's settings table is rendered from this
 * table (a test fails when they disagree). Defaults are strings, parsed like any value given.
 */
import { z } from 'zod';
import { DEFAULT_PLAN_CONFIG } from './core/config.js';
import { DEFAULT_COVERAGE } from './core/coverage.js';
import { DEFAULT_INSTANCE_TAGS, DEFAULT_VOLUME_TAGS } from './core/tag-scheme.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from './observability/metric-names.js';

interface Setting<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** As the variable spells it; undefined: no default (required, or unset means "not used"). */
  default?: string;
  /** The default column when it depends on other settings (the value is derived in config.ts). */
  derivedDefault?: string;
  /** What the variable takes, with an example: quoted by configuration errors. */
  expected: string;
  meaning: string;
  /** Required wherever the controller runs (others may be required in Lambda only). */
  required?: boolean;
}

const text = z.string().trim().min(1);
const wholeAbove0 = z.coerce.number().int().positive();
const url = z.url();
const seconds = (example: string) => `a whole number of seconds above 0 (e.g. ${example})`;
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

const perSecond = z.coerce.number().positive();
const splitList = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;
const EXAMPLE_KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const setting = <const T extends Setting>(spec: T): T => spec;

/** The plan's defaults are the core's (core/config.ts), spelled as the variables spell them. */
const PLAN = DEFAULT_PLAN_CONFIG;
const inSeconds = (ms: number) => String(ms / 1000);
const UNMOUNT_DEFAULT = PLAN.maxWaitForUnmountMs === null ? 'disabled' : inSeconds(PLAN.maxWaitForUnmountMs);
const FRACTION_DEFAULT = PLAN.massDetachGuard === null ? 'disabled' : String(PLAN.massDetachGuard.maxFraction);
const MIN_ATTACHED_DEFAULT = String(PLAN.massDetachGuard?.minAttached ?? 0);

/**
 * EC2's bucket per mutating action holds 50 tokens refilled 5/s, per account and region, shared
 * with every other client there (CI, consoles, backup tools). The defaults take 4/s and a burst of
 * 20: the other clients keep 1/s (20% of the refill) and 30 tokens for their own bursts, and a
 * budget that runs dry still never drains EC2's bucket, so nothing of ours is throttled.
 */
const BUDGET_RATE = (action: string) =>
  `${action} calls per second every invocation together allows itself, retries included (EC2's bucket refills 5/s per account and region, shared with its other clients).`;
const BUDGET_BURST = (action: string) =>
  `${action} calls every invocation together may send at once after a quiet spell (EC2's bucket holds 50).`;

export const SETTING_SPECS = {
  TABLE_NAME: setting({
    schema: text,
    required: true,
    expected: 'the DynamoDB table that holds the actual state (e.g. ebs-attach-detach-volumes)',
    meaning: 'The state table: one item per volume, operation locks, leases and backoff. `ebs-attach-detach init` creates it locally.',
  }),
  AWS_REGION: setting({
    schema: text,
    required: true,
    expected: 'an AWS region (e.g. eu-west-1)',
    meaning: 'Region of the EC2 instances, the volumes and the table (any value for the local sandbox, e.g. us-east-1).',
  }),
  CLUSTER_NAME: setting({
    schema: text,
    expected: 'the EKS cluster name (e.g. prod)',
    meaning: 'Signs the EKS API token and labels metrics. Required in Lambda; `local` for local runs when unset.',
  }),
  CLUSTER_ENDPOINT: setting({
    schema: z.url({ protocol: /^https$/ }),
    expected: 'an https URL of the EKS API server (e.g. https://ABC123.gr7.eu-west-1.eks.amazonaws.com)',
    meaning: 'Where the Kubernetes API is reached in Lambda. Locally, KUBECONFIG is used when set.',
  }),
  CLUSTER_CA: setting({
    schema: z.base64(),
    expected: 'base64 of the cluster CA PEM, as `aws eks describe-cluster` prints it (e.g. LS0tLS1CRUdJTi...)',
    meaning: 'Trust anchor of the EKS API server. Required in Lambda.',
  }),
  KUBECONFIG: setting({
    schema: text,
    expected: 'a kubeconfig file path (e.g. .sandbox/kube/kubeconfig)',
    meaning: "Local runs: the cluster to reconcile (the current context). Unset: client-node's default (~/.kube/config).",
  }),
  AWS_ENDPOINT_URL_EC2: setting({
    schema: url,
    expected: 'a URL (e.g. http://127.0.0.1:4566)',
    meaning: 'Local runs: the EC2 endpoint (the local EC2 of `npm run sandbox:ec2`). Unset: AWS.',
  }),
  AWS_ENDPOINT_URL_DYNAMODB: setting({
    schema: url,
    expected: 'a URL (e.g. http://127.0.0.1:8000)',
    meaning: 'Local runs: the DynamoDB endpoint (`npm run sandbox:dynamodb`). Unset: AWS.',
  }),
  AWS_ACCESS_KEY_ID: setting({
    schema: text,
    expected: 'an access key id (any value for the local sandbox, e.g. local)',
    meaning: "Local runs: static credentials (with AWS_SECRET_ACCESS_KEY). Unset: the SDK's provider chain (profile, SSO, role).",
  }),
  AWS_SECRET_ACCESS_KEY: setting({
    schema: text,
    expected: 'a secret access key (any value for the local sandbox, e.g. local)',
    meaning: 'Local runs: the secret of AWS_ACCESS_KEY_ID.',
  }),
  AWS_SESSION_TOKEN: setting({
    schema: text,
    expected: 'a session token (e.g. from `aws sts get-session-token`)',
    meaning: 'Local runs: the session token of temporary credentials.',
  }),
  // Not `MODE`: Vite (and so vitest) sets MODE in every process it runs.
  OPERATING_MODE: setting({
    schema: z.enum(['controller', 'attacher']),
    default: 'controller',
    expected: '"controller" or "attacher"',
    meaning:
      "`controller`: we are the attach/detach controller (kcm's is turned off). `attacher`: kcm's attach/detach controller decides through VolumeAttachments and we replace the EBS CSI `csi-attacher` sidecar (EKS).",
  }),
  WRITES: setting({
    schema: z.enum(['on', 'off']),
    derivedDefault: '`on`; attacher mode: `off` unless LEASE_FENCE=on or SIDECAR_GONE=true',
    expected: '"on" or "off" (e.g. off)',
    meaning:
      "Whether the controller changes anything. `off`: every pass is a dry run (it reads the cluster, the table and EC2, plans and reports, and writes nothing: no EC2 call that mutates, no Kubernetes object, no item, no Lease). In attacher mode that is the shadow step before taking over from the `csi-attacher` sidecar: each pass compares the sidecar's VolumeAttachments with EC2 (`ShadowVerdicts` metrics, `ebs-attach-detach shadow`). Attacher mode refuses to start with `on` while LEASE_FENCE=off and SIDECAR_GONE=false: it would be a second live attacher beside the sidecar.",
  }),
  SIDECAR_GONE: setting({
    schema: z.enum(['true', 'false']),
    default: 'false',
    expected: '"true" or "false" (e.g. true)',
    meaning:
      "Attacher mode: the operator's word that no EBS CSI `csi-attacher` sidecar runs (removed from the controller, or it runs without leader election and is stopped for good). `true` lets attacher mode write without LEASE_FENCE, and lets a fence that finds no sidecar Lease create one. `false`: WRITES=on needs LEASE_FENCE=on, and a fence that finds no Lease acts on nothing (`Fenced` metric, state `no-lease`).",
  }),
  ATTACHER_POLL_SECONDS: setting({
    schema: wholeAbove0,
    default: '10',
    expected: seconds('10'),
    meaning:
      "Attacher mode: how long a pod's `Scheduled` event polls for the VolumeAttachments kcm creates for it before leaving them to the full pass.",
  }),
  SYNC_PERIOD_SECONDS: setting({
    schema: wholeAbove0,
    default: '60',
    expected: seconds('60'),
    meaning: "How often a full pass verifies the actual state against EC2 (upstream's reconciler sync period).",
  }),
  COMPLETE_PASS_SECONDS: setting({
    schema: wholeAbove0,
    default: inSeconds(DEFAULT_COVERAGE.completeEveryMs),
    expected: seconds('600'),
    meaning:
      "While a live watcher covers the cluster, a full pass lists the whole cluster and describes every volume only this often (and on a cold start, when no watcher covers, or after a watcher gave up on a target); the passes between read the store and verify a rolling slice. At or below SYNC_PERIOD_SECONDS every pass is complete. The default is external-attacher's resync.",
  }),
  VERIFY_SLICES: setting({
    schema: wholeAbove0,
    default: String(DEFAULT_COVERAGE.verifySlices),
    expected: 'a whole number above 0 (e.g. 5)',
    meaning:
      'A covered pass describes unsettled and recently changed volumes at every sync and one slice of the rest, so an out-of-band detach is found within this many sync periods. 1 describes every volume at every sync.',
  }),
  MAX_WAIT_FOR_UNMOUNT_SECONDS: setting({
    schema: z.union([z.literal('disabled'), wholeAbove0]),
    default: UNMOUNT_DEFAULT,
    expected: `${seconds('360')} or "disabled"`,
    meaning:
      "A not-Ready (or gone) node's mounted volume is force-detached this long after the detach was requested; `disabled` never does.",
  }),
  LEASE_MARGIN_SECONDS: setting({
    schema: wholeAbove0,
    default: inSeconds(PLAN.leaseMarginMs),
    expected: seconds('15'),
    meaning:
      "An operation's lock lasts until its invocation's own end (the function timeout) plus this margin, for clock skew and a request on the wire; then a later pass resolves it against EC2.",
  }),
  STUCK_ATTACH_SECONDS: setting({
    schema: wholeAbove0,
    default: inSeconds(PLAN.stuckAttachMs),
    expected: seconds('90'),
    meaning: 'An attach EC2 still shows `attaching` after this long is detached and retried from scratch.',
  }),
  MAX_ATTACH_WAIT_SECONDS: setting({
    schema: wholeAbove0,
    default: '60',
    expected: seconds('60'),
    meaning: 'How long one pass waits for an attach to reach `attached` before leaving it to the next pass.',
  }),
  MAX_CONCURRENT_OPERATIONS: setting({
    schema: wholeAbove0,
    default: '10',
    expected: 'a whole number above 0 (e.g. 10)',
    meaning: 'Volumes operated on at once within one pass.',
  }),
  KUBE_API_QPS: setting({
    schema: perSecond,
    default: '20',
    expected: 'requests per second above 0 (e.g. 20)',
    meaning:
      "Kubernetes API requests per second one invocation sends on average (kube-controller-manager's own client limit; the stack gives the watcher 50, about what the EC2 budget's 4 attaches a second need, each change costing it a dozen requests).",
  }),
  KUBE_API_BURST: setting({
    schema: wholeAbove0,
    default: '30',
    expected: 'a whole number above 0 (e.g. 30)',
    meaning:
      'Kubernetes API requests one invocation may send at once after a quiet spell (the stack gives the watcher 100, as the EBS CSI chart gives its csi-attacher).',
  }),
  EC2_ATTACH_VOLUME_RATE: setting({
    schema: perSecond,
    default: '4',
    expected: 'calls per second above 0 (e.g. 4)',
    meaning: BUDGET_RATE('AttachVolume'),
  }),
  EC2_ATTACH_VOLUME_BURST: setting({
    schema: wholeAbove0,
    default: '20',
    expected: 'a whole number above 0 (e.g. 20)',
    meaning: BUDGET_BURST('AttachVolume'),
  }),
  EC2_DETACH_VOLUME_RATE: setting({
    schema: perSecond,
    default: '4',
    expected: 'calls per second above 0 (e.g. 4)',
    meaning: BUDGET_RATE('DetachVolume'),
  }),
  EC2_DETACH_VOLUME_BURST: setting({
    schema: wholeAbove0,
    default: '20',
    expected: 'a whole number above 0 (e.g. 20)',
    meaning: BUDGET_BURST('DetachVolume'),
  }),
  EC2_BUDGET_TABLE_NAME: setting({
    schema: text,
    expected: 'a DynamoDB table with a string partition key `pk` (e.g. ebs-attach-detach-ec2-budget)',
    meaning:
      "Where the EC2 budget is kept; unset: the state table (a budget per cluster). Clusters sharing an account and region that name one table share one budget, as EC2 counts it (each controller's role needs GetItem and UpdateItem on it).",
  }),
  MASS_DETACH_MAX_FRACTION: setting({
    schema: z.union([z.literal('disabled'), z.coerce.number().gt(0).max(1)]),
    default: FRACTION_DEFAULT,
    expected: 'a fraction above 0 and at most 1 (e.g. 0.5) or "disabled"',
    meaning: 'The mass-detach guard: one pass detaches at most this fraction of the attached volumes; `disabled` turns the guard off.',
  }),
  MASS_DETACH_MIN_ATTACHED: setting({
    schema: z.coerce.number().int().nonnegative(),
    default: MIN_ATTACHED_DEFAULT,
    expected: 'a whole number, 0 or more (e.g. 10)',
    meaning: 'The mass-detach guard applies only when more volumes than this are attached.',
  }),
  MASS_DETACH_WINDOW_SECONDS: setting({
    schema: wholeAbove0,
    default: inSeconds(PLAN.massDetachWindowMs),
    expected: seconds('300'),
    meaning:
      "The mass-detach window, kept in the state table: the passes of one window together detach at most the fraction one pass may (the default is the full pass's timeout, so every pass overlapping another shares its window).",
  }),
  VOLUME_TAGS: setting({
    schema: text,
    default: DEFAULT_VOLUME_TAGS,
    expected: `volume tag schemes and key=value pairs naming the cluster, comma-separated (e.g. ${DEFAULT_VOLUME_TAGS})`,
    meaning:
      "The tags the role requires on a volume before it may attach or detach it (one of them, key and value): `cluster-name` (ebs.csi.aws.com/cluster-name=<cluster>), `kubernetes-cluster` (kubernetes.io/cluster/<cluster>=owned), `csi-any-cluster` (AmazonEBSCSIDriverPolicyV2's tags: every cluster of the account). The stack sets it from `-c volumeTags`; the controller uses it to name the tag a refused volume lacks.",
  }),
  INSTANCE_TAGS: setting({
    schema: text,
    default: DEFAULT_INSTANCE_TAGS,
    expected: `instance tag schemes and key=value pairs naming the cluster, comma-separated (e.g. ${DEFAULT_INSTANCE_TAGS})`,
    meaning:
      'The tags the role requires on an instance (one of them): `eks-nodegroup` (eks:cluster-name=<cluster>), `eks-auto-mode` (eks:eks-cluster-name=<cluster>), `cluster-name` (ebs.csi.aws.com/cluster-name=<cluster>), `kubernetes-cluster` (kubernetes.io/cluster/<cluster>=owned). Set by the stack from `-c instanceTags`.',
  }),
  KMS_KEY_ARNS: setting({
    schema: text.transform(splitList).pipe(z.array(z.string().regex(KMS_KEY_ARN))),
    expected: `KMS key ARNs, comma-separated (e.g. ${EXAMPLE_KEY_ARN})`,
    meaning:
      "The KMS keys the role may create EC2's grant on (`kms:CreateGrant`), which an attach of a volume encrypted under a key needs. Set by the stack from `-c kmsKeyArns`; unset: none. A dry run does not ask KMS, so the shadow's preflight sets the key of every volume it would attach beside this list and names a volume under any other key (`kms-key-unlisted`; the takeover waits on it). EC2 names the account's AWS-managed `aws/ebs` key by its key ARN too, nothing in it saying `aws/ebs`: list that key as well (`aws kms describe-key --key-id alias/aws/ebs`) to clear its volumes (their attach needs no grant).",
  }),
  OUT_OF_SERVICE_TAINT: setting({
    schema: z.enum(['on', 'off']),
    default: 'on',
    expected: '"on" or "off"',
    meaning:
      "Taint a node `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` when EC2 shows its instance stopped or terminated, so its volumes are detached at once instead of after MAX_WAIT_FOR_UNMOUNT_SECONDS; our taint is removed when the instance runs again. Needs `patch` on nodes. `off`: never taints, and a dead instance's mounted volumes wait for the node to turn NotReady (and, under kcm, for its 6-minute timeout).",
  }),
  OUT_OF_SERVICE_FOLLOW_SECONDS: setting({
    schema: wholeAbove0,
    default: '90',
    expected: seconds('90'),
    meaning:
      "Attacher mode: how long the EC2 event's pass that tainted a stopped or terminated instance's node keeps following it (within the function's time): it detaches the node's VolumeAttachments as soon as kcm deletes them, then attaches their replacements on the new nodes. kcm deletes them only after pod GC removed the node's pods, i.e. once the node is NotReady (40–50 s without a heartbeat). The full pass every minute finishes whatever is left.",
  }),
  LEASE_FENCE: setting({
    schema: z.enum(['on', 'off']),
    default: 'off',
    expected: '"on" or "off" (e.g. on)',
    meaning:
      "Attacher mode on EKS: hold the `csi-attacher` sidecar's leader-election Lease so the sidecar stays a standby (docs/lease-fence.md). Each pass takes or renews it first and runs as a dry run while another holder's record is live (the first sight of that record is kept in the state table, so every invocation counts from it) or when there is no Lease (unless SIDECAR_GONE=true); every AttachVolume and DetachVolume first reads it again when our last read is older than 5 s. Needs `get`, `create`, `update` on that Lease. Hand back with `ebs-attach-detach handback`.",
  }),
  LEASE_FENCE_NAME: setting({
    schema: text,
    default: 'external-attacher-leader-ebs-csi-aws-com',
    expected: 'a Lease name (e.g. external-attacher-leader-ebs-csi-aws-com)',
    meaning:
      "The sidecar's Lease: `external-attacher-leader-` and the CSI driver name with every character outside `[a-zA-Z0-9-]` made `-`.",
  }),
  LEASE_FENCE_NAMESPACE: setting({
    schema: text,
    default: 'kube-system',
    expected: 'a namespace (e.g. kube-system)',
    meaning: "The sidecar's namespace, where its Lease lives (the EBS CSI add-on's: kube-system).",
  }),
  LEASE_FENCE_DURATION_SECONDS: setting({
    schema: z.coerce.number().int().min(30),
    default: '180',
    expected: 'a whole number of seconds, 30 or more (e.g. 180)',
    meaning:
      'The `leaseDurationSeconds` we write: the sidecar waits this long after our last renewal before it takes the Lease, so it covers our schedule (the default: two missed 60 s ticks and a pass). It is also how long the sidecar stays idle after our passes stop (then a failback: the `FencedAfterHeld` alarm).',
  }),
  LEASE_FENCE_IDENTITY: setting({
    schema: text,
    expected: 'a holder identity (e.g. ebs-attach-detach/prod)',
    meaning:
      'Our `holderIdentity` on the Lease. Unset: POWERTOOLS_SERVICE_NAME/CLUSTER_NAME. It must be the same for every function and invocation of one controller (they all renew one record; the store already coordinates them) and stay the same across deployments (a new identity waits out the old record), so it is not a function name.',
  }),
  POWERTOOLS_SERVICE_NAME: setting({
    schema: text,
    default: SERVICE_NAME,
    expected: `a service name (e.g. ${SERVICE_NAME})`,
    meaning: 'The `service` of every log line and metric.',
  }),
  POWERTOOLS_METRICS_NAMESPACE: setting({
    schema: text,
    default: METRICS_NAMESPACE,
    expected: `a CloudWatch namespace (e.g. ${METRICS_NAMESPACE})`,
    meaning: 'CloudWatch namespace of the metrics.',
  }),
  POWERTOOLS_LOG_LEVEL: setting({
    schema: z.string().toUpperCase().pipe(z.enum(LOG_LEVELS)),
    default: 'INFO',
    expected: `one of ${LOG_LEVELS.join(', ')} (e.g. DEBUG)`,
    meaning: 'Log level. The CLI logs nothing unless this is set, and then to stderr.',
  }),
};

export type SettingName = keyof typeof SETTING_SPECS;

type Spec<K extends SettingName> = (typeof SETTING_SPECS)[K];
/** Settings that may be unset after defaults are applied: no default and not required. */
type OptionalName = { [K in SettingName]: Spec<K> extends { default: string } | { required: true } ? never : K }[SettingName];

/** The parsed environment: every setting with a default or required is present. */
export type Env = { [K in Exclude<SettingName, OptionalName>]: z.output<Spec<K>['schema']> } & {
  [K in OptionalName]?: z.output<Spec<K>['schema']>;
};

/** The schema of the whole environment (defaults are merged in before parsing). */
export const ENV_SCHEMA = z.object(
  Object.fromEntries(
    Object.entries(SETTING_SPECS).map(([name, spec]: [string, Setting]) => [
      name,
      spec.required || spec.default !== undefined ? spec.schema : spec.schema.optional(),
    ]),
  ),
) as unknown as z.ZodType<Env>;

/** The table as a list, in the order above (the README's order). */
export const SETTINGS: ({ name: SettingName } & Setting)[] = Object.entries(SETTING_SPECS).map(([name, spec]) => ({
  name: name as SettingName,
  ...spec,
}));

/** The README's settings table, rendered from the specs. */
export function settingsTable(): string {
  const cell = (value: string) => value.replaceAll('|', '\\|');
  const rows = SETTINGS.map((s) => {
    const fallback = s.derivedDefault ?? (s.default === undefined ? (s.required ? 'required' : '–') : `\`${s.default}\``);
    return `| \`${s.name}\` | ${fallback} | ${cell(s.expected)} | ${cell(s.meaning)} |`;
  });
  return ['| setting | default | takes | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
