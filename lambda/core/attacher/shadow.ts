/**
 * Shadow mode (issue #12): before taking over from the EBS CSI `csi-attacher` sidecar, each
 * VolumeAttachment it handles is set beside EC2's word on the VA node's instance and beside what
 * our plan would do next, and classified into one verdict of a small closed set. Only reads go
 * into it: a team runs it for days, and a healthy cluster shows `agrees` (and a few short-lived
 * `attach-pending` / `detach-pending` rows) everywhere before the switch.
 */
import type { Action, HeldBack } from '../actions.js';
import { compareText } from '../compare.js';
import { type InstanceId, type NodeName, type Observations, pairKey, type VolumeId, type VolumeObservation } from '../types.js';
import { NODE_ID_ANNOTATION } from './names.js';
import { keyVerdict, nextCall, preflightVerdict, type PreflightSeen } from './preflight.js';
import type { VaTarget } from './targets.js';

export const SHADOW_VERDICTS = [
  /** The sidecar's report, EC2 and our plan all say the same. */
  'agrees',
  /** The VA says `attached: true`, EC2 shows the volume nowhere on the VA node's instance. */
  'va-attached-ec2-not',
  /** EC2 shows the volume on an instance no live VA asks for. */
  'ec2-attached-unrequested',
  /** kcm is deleting the VA and EC2 still shows the volume on its instance. */
  'detach-pending',
  /** A live VA the sidecar has not reported attached yet. */
  'attach-pending',
  /** The sidecar wrote attachError (live VA) or detachError (deleting VA). */
  'sidecar-error',
  /** We cannot name the VA's volume or instance (the reason is in the row). */
  'unresolvable',
  /** The sidecar and EC2 agree, yet our plan would attach or detach the pair. */
  'plan-differs',
  /** EC2 was not asked about the volume this pass (verification failed). */
  'unverified',
  /** The sidecar's leader-election Lease is not where the fence looks (or cannot be read): the fence would act on nothing. */
  'no-sidecar-lease',
  /** EC2 refused the dry run of our next call on the pair (UnauthorizedOperation): our role may not do what the sidecar does. */
  'would-be-denied',
  /** Our next call attaches a volume under a KMS key KMS_KEY_ARNS does not list: EC2 could not create its grant (a dry run does not ask). */
  'kms-key-unlisted',
  /** The dry run of our next call got no verdict (throttled, unreachable, another error): nothing proven. */
  'preflight-unanswered',
] as const;

/** Verdicts the takeover does not begin under unless told to (`takeover --despite-preflight`). */
export const BLOCKS_TAKEOVER: readonly ShadowVerdict[] = ['would-be-denied', 'kms-key-unlisted', 'preflight-unanswered'];

type ShadowVerdict = (typeof SHADOW_VERDICTS)[number];

/** One line of the comparison: the sidecar's report, EC2's truth, our next step, the verdict. */
export interface ShadowRow {
  /** Absent on `ec2-attached-unrequested` rows: no VA names the pair. */
  volumeAttachment?: string;
  volumeId?: VolumeId;
  nodeName?: NodeName;
  instanceId?: InstanceId;
  /** `attached`, `not attached`, `deleting`, or the error it wrote. */
  sidecar: string;
  finalizer: boolean;
  /** The sidecar's `csi.alpha.kubernetes.io/node-id` annotation. */
  nodeIdAnnotation?: string;
  /** EC2's attachment state on the instance, `elsewhere i-…`, `detached`, `volume gone`, or `not asked`. */
  ec2: string;
  /** What our plan would do next to the pair: an action kind, `detach (held back)`, or `none`. */
  planned: string;
  verdict: ShadowVerdict;
  /** Why, for anything but `agrees`. */
  detail?: string;
}

export interface ShadowComparison {
  rows: ShadowRow[];
  counts: Record<ShadowVerdict, number>;
}

/** What a shadow pass found of the sidecar's Lease; absent when the operator said no sidecar runs (SIDECAR_GONE). */
export type SidecarLeaseSeen =
  { where: string; found: true; holder?: string } | { where: string; found: false } | { where: string; error: string };

export interface ShadowInputs {
  /** Checked before the takeover: the fence holds this Lease, so it must exist. */
  sidecarLease?: SidecarLeaseSeen;
  targets: readonly VaTarget[];
  observations: Observations;
  actions: readonly Action[];
  heldBack: readonly HeldBack[];
  /** Instance → node of every node we know, to name an unrequested attachment. */
  nodeOfInstance: ReadonlyMap<InstanceId, NodeName>;
  /** EC2's answers to the dry run of each VA's next call, by VA name (absent: no preflight this pass). */
  preflights?: ReadonlyMap<string, PreflightSeen>;
  /** With the preflight: the KMS keys our role may create EC2's grant on (KMS_KEY_ARNS); an attach under another is named. */
  grantableKeys?: ReadonlySet<string>;
}

function ec2State(observation: VolumeObservation | undefined, instanceId: InstanceId | undefined): string {
  if (observation === undefined) return 'not asked';
  if (!observation.exists) return 'volume gone';
  const live = observation.attachments.filter((a) => a.state !== 'detached');
  const here = live.find((a) => a.instanceId === instanceId);
  if (here !== undefined) return here.state;
  if (live.length === 0) return 'detached';
  return `${instanceId === undefined ? 'on' : 'elsewhere'} ${live.map((a) => a.instanceId).join(',')}`;
}

function plannedFor(inputs: ShadowInputs, volumeId: VolumeId | undefined, nodeName: NodeName | undefined): string {
  if (volumeId === undefined || nodeName === undefined) return 'none';
  const action = inputs.actions.find((a) => a.volumeId === volumeId && a.nodeName === nodeName);
  if (action !== undefined) return action.kind;
  const held = inputs.heldBack.some((h) => h.action.volumeId === volumeId && h.action.nodeName === nodeName);
  return held ? 'detach (held back)' : 'none';
}

/** What the sidecar wrote against what the VA asks: attachError on a live VA, detachError on a deleting one. */
function sidecarError(target: VaTarget): string | undefined {
  const error = target.deleting ? target.va.status?.detachError : target.va.status?.attachError;
  return error ? `${target.deleting ? 'detach' : 'attach'} error: ${error.message ?? '(no message)'}` : undefined;
}

function sidecarReport(target: VaTarget): string {
  const attached = target.va.status?.attached === true ? 'attached' : 'not attached';
  return sidecarError(target) ?? (target.deleting ? `deleting, ${attached}` : attached);
}

type Judged = Pick<ShadowRow, 'verdict' | 'detail'>;

function judgeSidecar(target: VaTarget, shows: boolean): Judged {
  const error = sidecarError(target);
  if (error !== undefined) return { verdict: 'sidecar-error', detail: error };
  if (target.deleting)
    return shows
      ? { verdict: 'detach-pending', detail: 'kcm deletes the VA; EC2 still shows the volume on its instance' }
      : { verdict: 'agrees' };
  const reported = target.va.status?.attached === true;
  if (reported && !shows)
    return { verdict: 'va-attached-ec2-not', detail: 'the VA says attached; EC2 shows no attachment on its instance' };
  if (!reported)
    return { verdict: 'attach-pending', detail: shows ? 'EC2 shows it; the VA does not say attached yet' : 'not attached yet' };
  return { verdict: 'agrees' };
}

function judge(target: VaTarget, observation: VolumeObservation | undefined, planned: string): Judged {
  // A target resolves to a volume and an instance unless it carries the reason it does not.
  if (target.error !== undefined) return { verdict: 'unresolvable', detail: target.error };
  if (observation === undefined) return { verdict: 'unverified', detail: 'EC2 was not asked about the volume' };
  const shows = observation.exists && observation.attachments.some((a) => a.instanceId === target.instanceId && a.state !== 'detached');
  const judged = judgeSidecar(target, shows);
  if (judged.verdict === 'agrees' && planned !== 'none')
    return { verdict: 'plan-differs', detail: `the sidecar and EC2 agree; we would ${planned}` };
  return judged;
}

function targetRow(inputs: ShadowInputs, target: VaTarget): ShadowRow {
  const observation = target.volumeId === undefined ? undefined : inputs.observations.volumes?.get(target.volumeId);
  const planned = plannedFor(inputs, target.volumeId, target.nodeName);
  const annotation = target.va.metadata.annotations?.[NODE_ID_ANNOTATION];
  return {
    volumeAttachment: target.name,
    nodeName: target.nodeName,
    ...(target.volumeId === undefined ? {} : { volumeId: target.volumeId }),
    ...(target.instanceId === undefined ? {} : { instanceId: target.instanceId }),
    sidecar: sidecarReport(target),
    finalizer: target.finalized,
    ...(annotation === undefined ? {} : { nodeIdAnnotation: annotation }),
    ec2: target.volumeId === undefined ? 'not asked' : ec2State(observation, target.instanceId),
    planned,
    ...withPreflight(judge(target, observation, planned), inputs.preflights?.get(target.name), keyOf(inputs, target, observation)),
  };
}

function keyOf(inputs: ShadowInputs, target: VaTarget, observation: VolumeObservation | undefined): Judged | undefined {
  return inputs.grantableKeys === undefined ? undefined : keyVerdict(nextCall(target, observation), observation, inputs.grantableKeys);
}

/**
 * A refused dry run outranks any other verdict (the takeover would fail on it), then an unlisted key
 * (the attach would fail on it; said beside a refusal too); an unanswered dry run only hides `agrees`.
 */
function withPreflight(judged: Judged, seen: PreflightSeen | undefined, key: Judged | undefined): Judged {
  const preflight = preflightVerdict(seen);
  if (preflight?.verdict === 'would-be-denied')
    return key === undefined ? preflight : { ...preflight, detail: `${preflight.detail}; and ${key.detail}` };
  if (key !== undefined) return key;
  if (preflight !== undefined && judged.verdict === 'agrees') return preflight;
  return judged;
}

/** Attachments EC2 shows for a volume the cluster names, on an instance (or node) no VA, live or deleting, names. */
function unrequestedRows(inputs: ShadowInputs): ShadowRow[] {
  const named = new Set(
    inputs.targets.flatMap((t) =>
      t.volumeId === undefined
        ? []
        : [pairKey(t.volumeId, t.nodeName), ...(t.instanceId === undefined ? [] : [pairKey(t.volumeId, t.instanceId)])],
    ),
  );
  const rows: ShadowRow[] = [];
  for (const observation of inputs.observations.volumes?.values() ?? []) {
    if (!observation.exists) continue;
    for (const attachment of observation.attachments) {
      const nodeName = inputs.nodeOfInstance.get(attachment.instanceId);
      const pairs = [attachment.instanceId, ...(nodeName === undefined ? [] : [nodeName])].map((on) => pairKey(observation.volumeId, on));
      if (attachment.state === 'detached' || pairs.some((pair) => named.has(pair))) continue;
      rows.push({
        volumeId: observation.volumeId,
        instanceId: attachment.instanceId,
        ...(nodeName === undefined ? {} : { nodeName }),
        sidecar: 'no VA',
        finalizer: false,
        ec2: attachment.state,
        planned: plannedFor(inputs, observation.volumeId, nodeName),
        verdict: 'ec2-attached-unrequested',
        detail: nodeName === undefined ? 'on an instance behind no node' : `attached to node ${nodeName}, which no VA asks for`,
      });
    }
  }
  return rows;
}

/** VA rows by name; EC2's extra rows (which always name a volume and an instance) by both. */
const rowKey = (row: ShadowRow) => row.volumeAttachment ?? `${row.volumeId}/${row.instanceId}`;

/** A row when the sidecar's Lease is missing or unreadable: the takeover's fence would have nothing to hold. */
function leaseRow(seen: SidecarLeaseSeen | undefined): ShadowRow[] {
  if (seen === undefined || ('found' in seen && seen.found)) return [];
  const detail =
    'error' in seen
      ? `cannot read the Lease ${seen.where}: ${seen.error} (infra/k8s/rbac-lease-fence.yaml grants get on it)`
      : `no Lease ${seen.where}: the sidecar runs in another namespace or under another name (leaseFenceNamespace, leaseFenceName), or without leader election; the fence would act on nothing`;
  return [{ sidecar: 'no Lease', finalizer: false, ec2: '-', planned: 'none', verdict: 'no-sidecar-lease', detail }];
}

/** Every VA the sidecar handles, and every EC2 attachment no VA names, with its verdict; a missing sidecar Lease first. */
export function compareWithSidecar(inputs: ShadowInputs): ShadowComparison {
  const compared = [...inputs.targets.map((t) => targetRow(inputs, t)), ...unrequestedRows(inputs)];
  compared.sort((a, b) => compareText(rowKey(a), rowKey(b)));
  const rows = [...leaseRow(inputs.sidecarLease), ...compared];
  const counts = Object.fromEntries(SHADOW_VERDICTS.map((v) => [v, 0])) as Record<ShadowVerdict, number>;
  for (const row of rows) counts[row.verdict] += 1;
  return { rows, counts };
}

/** The rows a team must look at: anything but `agrees`. */
export function disagreements(comparison: ShadowComparison): ShadowRow[] {
  return comparison.rows.filter((row) => row.verdict !== 'agrees');
}
