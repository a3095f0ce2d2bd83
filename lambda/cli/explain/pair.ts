/**
 * One (volume, node): the record, what EC2 says, the VolumeAttachment and the node, and where the
 * plan leaves it — deferred (with the core's code), held back, an action planned, or settled.
 */
import type { Plan } from '../../core/actions.js';
import type { KubePv } from '../../core/kube.js';
import { attachingFor } from '../../core/observed.js';
import { volumeOfVolumeAttachment } from '../../core/volume-sources.js';
import type { DesiredState, NodeName, VolumeId } from '../../core/types.js';
import { uniqueNameFor } from '../../core/volume-id.js';
import { notAuthorizedReason } from '../../core/tag-scheme.js';
import { ec2Step, nodeStep, recordStep } from './steps.js';
import type { ChainCode, ExplainInputs, Step } from './types.js';
import { sentenceFor } from './verdicts.js';

export interface PlanView {
  inputs: ExplainInputs;
  desired: DesiredState;
  planned: Plan;
  pvNamed: (name: string) => KubePv | undefined;
}

export interface PairOutcome {
  steps: Step[];
  code: ChainCode;
  sentence: string;
}

function vaStep(view: PlanView, volumeId: VolumeId, nodeName: NodeName): Step {
  const va = view.inputs.snapshot.volumeAttachments.find((candidate) => {
    const volume = volumeOfVolumeAttachment(candidate, view.pvNamed);
    return candidate.spec.nodeName === nodeName && volume.kind === 'ebs' && volume.volumeId === volumeId;
  });
  if (!va) return { kind: 'volumeAttachment', says: 'none' };
  const status = va.status;
  const device = status?.attachmentMetadata?.devicePath;
  const error = status?.attachError?.message ?? status?.detachError?.message;
  const says = `${va.metadata.name ?? ''}: attached ${status?.attached === true ? 'true' : 'false'}${device ? `, devicePath ${device}` : ''}${error ? `, error: ${error}` : ''}`;
  return { kind: 'volumeAttachment', says };
}

/** Seconds until the next thing the code waits for, when the record or EC2 tells. */
function secondsUntil(view: PlanView, code: ChainCode, volumeId: VolumeId, nodeName: NodeName, operation: string): number | undefined {
  const { actual, observations, now, config } = view.inputs;
  const record = actual.get(volumeId);
  const s = (at: number) => Math.max(0, Math.ceil((at - now) / 1000));
  if (code === 'backing-off') {
    const backoff = record?.backoff[`${operation}:${nodeName}`];
    return backoff === undefined ? undefined : s(backoff.notBefore);
  }
  if (code === 'lock-held') {
    const leases = Object.values(record?.operations ?? {}).map((op) => op.leaseExpiresAt);
    return leases.length === 0 ? undefined : s(Math.min(...leases));
  }
  if (code === 'attach-in-progress') {
    const attachment = record?.attachments[nodeName];
    const seen = observations.volumes?.get(volumeId)?.attachments.find((a) => a.instanceId === attachment?.instanceId);
    return seen === undefined || attachment === undefined
      ? undefined
      : s(now + config.stuckAttachMs - attachingFor(seen, attachment.since, now));
  }
  if (code === 'waiting-for-unmount-timeout' && config.maxWaitForUnmountMs !== null) {
    const requested = record?.attachments[nodeName]?.detachRequestedAt ?? now;
    return s(requested + config.maxWaitForUnmountMs);
  }
  return undefined;
}

function decide(view: PlanView, volumeId: VolumeId, nodeName: NodeName): { code: ChainCode; reason: string; operation: string } {
  const { planned, desired, inputs } = view;
  const here = <T extends { volumeId: VolumeId; nodeName: NodeName }>(x: T) => x.volumeId === volumeId && x.nodeName === nodeName;
  const wanted = desired.attachments.find(here);
  const deferred = (planned.deferred ?? []).filter(here);
  const waiting = deferred.find((d) => d.operation === (wanted ? 'attach' : 'detach')) ?? deferred[0];
  // "attach waits: …" reads twice in a sentence that already says what waits.
  if (waiting) return { code: waiting.code, reason: waiting.reason.replace(/^(attach|detach) waits: /, ''), operation: waiting.operation };
  const held = planned.heldBack.find((h) => here(h.action));
  if (held) return { code: held.code, reason: held.reason, operation: 'detach' };
  const action =
    planned.actions.find((a) => here(a) && a.kind !== 'unreport') ??
    planned.actions.find((a) => a.volumeId === volumeId && a.kind === 'resolve');
  if (action?.kind === 'multiAttachConflict') return { code: 'multi-attach', reason: action.reason, operation: 'attach' };
  if (action?.kind === 'attach') return { code: 'will-attach', reason: action.reason, operation: 'attach' };
  if (action?.kind === 'detach') return { code: 'will-detach', reason: action.reason, operation: 'detach' };
  if (action?.kind === 'resolve') return { code: 'will-resolve', reason: action.reason, operation: action.operation.kind };
  const attachment = inputs.actual.get(volumeId)?.attachments[nodeName];
  if (wanted && attachment?.state === 'attached' && attachment.instanceId === wanted.instanceId)
    return { code: attachment.reported ? 'attached' : 'not-reported', reason: '', operation: 'attach' };
  return { code: 'not-desired', reason: '', operation: 'detach' };
}

/** Codes under which an attach is still to come: a refusal by IAM replaces them (it would never succeed as it stands). */
const ATTACH_PENDING = new Set<ChainCode>(['will-attach', 'backing-off', 'lock-held', 'planned-this-pass']);

/**
 * Why the role may not attach this volume here: from the tags EC2 shows on the volume and the
 * instance, checked against the scheme the role was given (core/tag-scheme.ts); else from the
 * record's last error when EC2 refused (e.g. the volume's KMS key), which tags cannot show.
 */
function notAuthorized(view: PlanView, volumeId: VolumeId, instanceId: string | undefined): string | undefined {
  const { tagScheme, observations, instanceTags, actual } = view.inputs;
  const volumeTags = observations.volumes?.get(volumeId)?.tags;
  if (tagScheme !== undefined && volumeTags !== undefined) {
    const tags = instanceId === undefined ? undefined : instanceTags?.get(instanceId);
    const instance = instanceId === undefined || tags === undefined ? undefined : { instanceId, tags: new Map(Object.entries(tags)) };
    const reason = notAuthorizedReason(tagScheme, { volumeId, tags: new Map(Object.entries(volumeTags)) }, instance);
    if (reason !== undefined) return reason;
  }
  const refusal = Object.entries(actual.get(volumeId)?.backoff ?? {}).find(
    ([key, b]) => key.startsWith('attach:') && REFUSED.test(b.lastError),
  );
  return refusal === undefined ? undefined : `EC2 refused the last attach: ${refusal[1].lastError.split(/(?<=\.) /)[0] ?? ''}`;
}

/** The codes the EC2 adapter classifies as a refusal of the role (adapters/ec2/errors.ts), as the record's last error starts. */
const REFUSED = /^(UnauthorizedOperation|CustomerKeyHasBeenRevoked)\b/;

export function explainPair(view: PlanView, volumeId: VolumeId, nodeName: NodeName): PairOutcome {
  const { inputs, desired } = view;
  const record = inputs.actual.get(volumeId);
  const nodeView = desired.nodes.get(nodeName);
  const instanceId = record?.attachments[nodeName]?.instanceId ?? nodeView?.instanceId;
  const steps: Step[] = [
    recordStep(record, nodeName, inputs.now),
    ec2Step(
      inputs.observations.volumes?.get(volumeId),
      instanceId,
      instanceId === undefined ? undefined : inputs.observations.instances?.get(instanceId),
    ),
    vaStep(view, volumeId, nodeName),
    nodeStep(nodeView, nodeName, record?.uniqueName ?? uniqueNameFor(volumeId)),
  ];
  const decided = decide(view, volumeId, nodeName);
  const refused =
    decided.operation === 'attach' && ATTACH_PENDING.has(decided.code) ? notAuthorized(view, volumeId, instanceId) : undefined;
  const { code, reason, operation } =
    refused === undefined ? decided : { code: 'not-authorized' as const, reason: refused, operation: 'attach' };
  const inSeconds = secondsUntil(view, code, volumeId, nodeName, operation);
  const sentence = sentenceFor(code, { volume: volumeId, node: nodeName, reason, ...(inSeconds === undefined ? {} : { inSeconds }) });
  return { steps, code, sentence };
}
