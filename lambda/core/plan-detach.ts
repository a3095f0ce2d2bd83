/**
 * The detach half of a plan: every attachment of the actual state that is no longer desired
 * (or stuck attaching) becomes a detach once it is safe, preceded by an `unreport` so the node
 * stops claiming the volume first. Everything that waits is recorded in `deferred` with why.
 */
import type { DetachAction, UnreportAction } from './actions.js';
import { decideDetach, nodeOfAttachment, type DetachDecision } from './detach-decision.js';
import { isMounted } from './nodes.js';
import { INCOMPLETE_INPUT, inScope, nodeInDetachScope } from './guards.js';
import { lostAttachMayLand } from './attachment-facts.js';
import { attachingFor, attachStuck, instanceStateOf, ec2ShowsAttachment } from './observed.js';
import { blockedReason, claim, defer, sortedNodeNames, sortedRecords, type PlanContext } from './plan-context.js';
import { type ActualAttachment, type NodeName, pairKey, type VolumeRecord } from './types.js';

export interface DetachCandidate {
  unreport?: UnreportAction;
  detach: DetachAction;
}

function isDesiredHere(ctx: PlanContext, record: VolumeRecord, attachment: ActualAttachment): boolean {
  return ctx.wanted.get(record.volumeId)?.get(attachment.nodeName)?.instanceId === attachment.instanceId;
}

/**
 * An attach EC2 has not finished after `stuckAttachMs` is detached and retried. Only EC2's word
 * this pass counts: a record that still says `attaching` may be stale (EC2 not asked this pass,
 * or a timed-out AttachVolume that went through), and detaching on its word alone would take a
 * working volume away. The clock starts at EC2's AttachTime when EC2 gives one.
 * A stuck attach was never reported, so the kubelet cannot have mounted it, whatever
 * volumesInUse (which also lists volumes the kubelet merely waits for) says. Should it somehow be
 * reported, the mount rule applies.
 */
function stuckDecision(ctx: PlanContext, record: VolumeRecord, attachment: ActualAttachment): DetachDecision {
  const seen = ctx.observations.volumes?.get(record.volumeId)?.attachments.find((a) => a.instanceId === attachment.instanceId);
  if (seen?.state !== 'attaching')
    return {
      detach: false,
      code: 'attach-unverified',
      why: 'attach in progress; a stuck attach is judged only on what EC2 says this pass',
    };
  if (!attachStuck(seen, attachment.since, ctx.now, ctx.config))
    return { detach: false, code: 'attach-in-progress', why: 'attach in progress' };
  const attaching = attachingFor(seen, attachment.since, ctx.now);
  const node = nodeOfAttachment(ctx.desired.nodes.get(attachment.nodeName), attachment);
  if (attachment.reported && node?.ready && !node.outOfService && isMounted(node.volumesInUse, record.uniqueName)) {
    return {
      detach: false,
      code: 'stuck-but-mounted',
      why: `attach stuck but already reported and mounted on Ready node ${attachment.nodeName}`,
    };
  }
  return {
    detach: true,
    trigger: 'stuck-attach',
    ec2Force: false,
    why: `EC2 shows it attaching for ${Math.round(attaching / 1000)} s (limit ${Math.round(ctx.config.stuckAttachMs / 1000)} s): detach and retry from scratch`,
  };
}

/** Attacher mode: kcm already waited for the unmount (or gave up on it); we detach exactly what it released. */
function releasedDecision(released: ReadonlySet<string>, record: VolumeRecord, attachment: ActualAttachment): DetachDecision {
  if (released.has(pairKey(record.volumeId, attachment.nodeName)))
    return { detach: true, trigger: 'released', ec2Force: false, why: 'kcm is deleting its VolumeAttachment' };
  return { detach: false, code: 'not-released', why: 'no VolumeAttachment asks for it; kcm decides when to detach' };
}

/** Undesired and not attaching: safe to detach? Also starts (persists) the unmount timer. */
function unneededDecision(ctx: PlanContext, record: VolumeRecord, attachment: ActualAttachment): DetachDecision {
  const { decidedBy } = ctx.desired;
  if (decidedBy.kind === 'kcm') return releasedDecision(decidedBy.released, record, attachment);
  const node = ctx.desired.nodes.get(attachment.nodeName);
  if (node && !node.managed)
    return { detach: false, code: 'node-unmanaged', why: `node ${attachment.nodeName} is not managed by this controller` };
  if (attachment.detachRequestedAt === undefined) {
    ctx.detachRequests.push({ volumeId: record.volumeId, nodeName: attachment.nodeName, detachRequestedAt: ctx.now });
  }
  return decideDetach({
    attachment,
    uniqueName: record.uniqueName,
    node,
    instanceState: instanceStateOf(ctx.observations, attachment.instanceId),
    requestedAt: attachment.detachRequestedAt ?? ctx.now,
    now: ctx.now,
    maxWaitForUnmountMs: ctx.config.maxWaitForUnmountMs,
  });
}

function decide(ctx: PlanContext, record: VolumeRecord, attachment: ActualAttachment): DetachDecision | undefined {
  const { volumeId } = record;
  const nodeName = attachment.nodeName;
  const desiredHere = isDesiredHere(ctx, record, attachment);
  if (desiredHere && attachment.detachRequestedAt !== undefined && inScope(ctx.desired, volumeId, nodeName)) {
    ctx.detachRequests.push({ volumeId, nodeName, detachRequestedAt: null });
  }
  if (attachment.state === 'attaching') {
    if (!inScope(ctx.desired, volumeId, nodeName)) return undefined;
    const stuck = stuckDecision(ctx, record, attachment);
    return stuck.detach && !ctx.desired.complete ? { detach: false, code: 'incomplete-input', why: INCOMPLETE_INPUT } : stuck;
  }
  if (desiredHere || !nodeInDetachScope(ctx.desired, nodeName)) return undefined;
  if (!ctx.desired.complete) return { detach: false, code: 'incomplete-input', why: INCOMPLETE_INPUT };
  return unneededDecision(ctx, record, attachment);
}

function candidate(
  kcmDecides: boolean,
  record: VolumeRecord,
  attachment: ActualAttachment,
  decision: Extract<DetachDecision, { detach: true }>,
): DetachCandidate {
  const base = { volumeId: record.volumeId, uniqueName: record.uniqueName, nodeName: attachment.nodeName };
  // A stuck attach was normally never reported; everything else leaves the node's list before EC2 is
  // asked, forced detaches included (a failed node-status write skips the detach, as upstream's
  // reconciler does: invariant 5). Where kcm decides (attacher mode) the node's list is kcm's alone.
  const unreport = !kcmDecides && (decision.trigger !== 'stuck-attach' || attachment.reported);
  const detach: DetachAction = {
    ...base,
    kind: 'detach',
    instanceId: attachment.instanceId,
    trigger: decision.trigger,
    ec2Force: decision.ec2Force,
    requiresUnreport: unreport,
    reason: decision.why,
  };
  if (!unreport) return { detach };
  return { detach, unreport: { ...base, kind: 'unreport', reason: `before detach: ${decision.why}` } };
}

function planAttachment(ctx: PlanContext, record: VolumeRecord, nodeName: NodeName, out: DetachCandidate[]): void {
  const attachment = record.attachments[nodeName]!;
  // EC2: already gone — unless a lost attach may still land: only our own detach settles that.
  if (!ec2ShowsAttachment(attachment, ctx.observations.volumes?.get(record.volumeId)) && !lostAttachMayLand(record, attachment)) return;
  const decision = decide(ctx, record, attachment);
  if (!decision) return;
  if (!decision.detach) {
    defer(ctx, record.volumeId, nodeName, 'detach', { code: decision.code, text: decision.why });
    return;
  }
  const blocked = blockedReason(ctx, record, record.volumeId, nodeName, 'detach', !record.multiAttach);
  if (blocked) {
    defer(ctx, record.volumeId, nodeName, 'detach', { code: blocked.code, text: `detach waits: ${blocked.text}` });
    return;
  }
  claim(ctx, record.volumeId, nodeName, !record.multiAttach);
  out.push(candidate(ctx.desired.decidedBy.kind === 'kcm', record, attachment, decision));
}

export function planDetaches(ctx: PlanContext): DetachCandidate[] {
  const out: DetachCandidate[] = [];
  for (const record of sortedRecords(ctx.actual)) {
    for (const nodeName of sortedNodeNames(record)) planAttachment(ctx, record, nodeName, out);
  }
  return out;
}
