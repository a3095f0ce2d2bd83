/**
 * The last step of a pass: node status and VolumeAttachments brought in line with the actual
 * state. Node lists come from the core's `nodeReports` (only `attached` volumes: invariant 5);
 * each write carries the list it was computed from, so concurrent writers keep each other's
 * entries. The records then remember what their node reports.
 */
import type { KubeVolumeAttachment } from '../core/kube.js';
import { nodeReports } from '../core/report.js';
import { markReported } from '../core/transitions.js';
import type { ActualAttachment, DesiredState, NodeName, VolumeId } from '../core/types.js';
import { ebsVolumeId, pvLookup, volumeOfVolumeAttachment } from '../core/volume-sources.js';
import { bestEffort, pairKey, type PassContext } from './context.js';
import { onRecord, writeRecord } from './records.js';
import { syncVolumeAttachment } from './volume-attachments.js';
import type { ClusterSnapshot } from '../core/kube.js';

export async function reportNodes(ctx: PassContext): Promise<void> {
  const volumesOn = volumesByNode(ctx);
  for (const [nodeName, report] of nodeReports(withCurrentReports(ctx), ctx.actual)) {
    const base = ctx.reported.get(nodeName) ?? [];
    if (report.changed) {
      let answer: string | undefined;
      await bestEffort(ctx, `node status of ${nodeName}`, async () => {
        answer = await ctx.deps.cluster.setVolumesAttached(nodeName, report.want, { base });
      });
      if (answer === undefined || answer === 'node-gone') continue;
      ctx.reported.set(nodeName, report.want);
    }
    await rememberReported(ctx, nodeName, volumesOn.get(nodeName) ?? [], new Set(report.want.map((entry) => entry.name)));
  }
}

/** The desired state's node views with the lists this pass has already written. */
function withCurrentReports(ctx: PassContext): DesiredState {
  const nodes = new Map([...ctx.desired.nodes].map(([name, view]) => [name, { ...view, volumesAttached: ctx.reported.get(name) ?? view.volumesAttached }]));
  return { ...ctx.desired, nodes };
}

/** Volume ids by the nodes their records attach them to: one walk instead of one per node. */
function volumesByNode(ctx: PassContext): Map<NodeName, VolumeId[]> {
  const index = new Map<NodeName, VolumeId[]>();
  for (const record of ctx.actual.values()) {
    for (const nodeName of Object.keys(record.attachments)) {
      const volumeIds = index.get(nodeName) ?? [];
      volumeIds.push(record.volumeId);
      index.set(nodeName, volumeIds);
    }
  }
  return index;
}

async function rememberReported(ctx: PassContext, nodeName: NodeName, volumeIds: VolumeId[], listed: Set<string>): Promise<void> {
  for (const volumeId of volumeIds) {
    const record = ctx.actual.get(volumeId);
    const attachment = record?.attachments[nodeName];
    if (record === undefined || attachment === undefined || attachment.reported === listed.has(record.uniqueName)) continue;
    await writeRecord(ctx.deps.store, ctx.actual, record.volumeId, record, onRecord((r) => markReported(r, nodeName, listed.has(r.uniqueName))));
  }
}

/** Full pass: every EBS VolumeAttachment against the actual state, plus every pair touched this pass. */
export async function reportVolumeAttachments(ctx: PassContext, snapshot: ClusterSnapshot | undefined): Promise<void> {
  const pairs = new Set(ctx.touched);
  const claimsAttached = new Set<string>();
  const existing = snapshot === undefined ? new Map<string, KubeVolumeAttachment>() : indexVolumeAttachments(snapshot);
  if (snapshot !== undefined) {
    for (const [pair, va] of existing) if (va.status?.attached === true) claimsAttached.add(pair);
    for (const record of ctx.actual.values()) {
      for (const a of Object.values(record.attachments)) {
        const pair = pairKey(record.volumeId, a.nodeName);
        if (a.state === 'attached' && !upToDate(existing.get(pair), a)) pairs.add(pair);
      }
    }
    for (const [pair] of existing) {
      const [volumeId = '', nodeName = ''] = pair.split('|');
      const record = ctx.actual.get(volumeId);
      if (record?.attachments[nodeName] === undefined && !Object.values(record?.operations ?? {}).some((op) => op.nodeName === nodeName)) pairs.add(pair);
    }
  }
  for (const pair of pairs) {
    const [volumeId = '', nodeName = ''] = pair.split('|');
    // A pair this pass touched (verified, seeded) whose object already says what the record says
    // needs no write: at a takeover that is every existing VolumeAttachment.
    if (snapshot !== undefined && upToDate(existing.get(pair), ctx.actual.get(volumeId)?.attachments[nodeName])) continue;
    await syncVolumeAttachment(ctx, volumeId, nodeName, claimsAttached.has(pair));
  }
}

function upToDate(va: KubeVolumeAttachment | undefined, attachment: ActualAttachment | undefined): boolean {
  return attachment?.state === 'attached' && va?.status?.attached === true && va.status.attachmentMetadata?.devicePath === attachment.device;
}

function indexVolumeAttachments(snapshot: ClusterSnapshot): Map<string, KubeVolumeAttachment> {
  const pvNamed = pvLookup(snapshot.pvs);
  const index = new Map<string, KubeVolumeAttachment>();
  for (const va of snapshot.volumeAttachments) {
    const volumeId = ebsVolumeId(volumeOfVolumeAttachment(va, pvNamed));
    if (volumeId !== undefined) index.set(pairKey(volumeId, va.spec.nodeName), va);
  }
  return index;
}
