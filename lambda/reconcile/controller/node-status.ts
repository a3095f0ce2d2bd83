/**
 * The one writer of node `status.volumesAttached` (upstream's statusupdater): it owns what each
 * node's list says during the pass and which (volume, node) pairs left a list this pass. Two
 * writes exist: before detaches, volumes leave their node's list (a detach whose unreport did not
 * succeed stays put); at the end of the pass, every managed node gets the list the core computes
 * (only `attached` volumes: invariant 5), and the records remember what their node reports.
 * Each write carries the list it was computed from, so concurrent writers keep each other's entries.
 */
import type { AttachedVolume } from '../../core/kube.js';
import { nodeReports } from '../../core/report.js';
import { claimListing } from '../../core/attachment-facts.js';
import { markReported, markUnreported } from '../../core/transitions.js';
import {
  type ActualState,
  type DesiredState,
  type NodeName,
  pairKey,
  type UniqueVolumeName,
  type VolumeId,
  type VolumeRecord,
} from '../../core/types.js';
import type { ControllerWrites } from '../../ports/cluster.js';
import type { PassState } from '../pass/state.js';
import { bestEffort } from '../pass/context.js';
import { onRecord, writeRecord } from '../pass/records.js';

/** What the updater needs of the pass (controller mode keeps it for the pass). */
export type NodeStatusPass = Pick<PassState, 'deps' | 'desired' | 'actual' | 'reportErrors'>;

type StatusWriter = Pick<ControllerWrites, 'setVolumesAttached'>;
type StatusAnswer = Awaited<ReturnType<StatusWriter['setVolumesAttached']>>;

export type Unreported = { ok: true; answer: StatusAnswer } | { ok: false; error: unknown };

export class NodeStatusUpdater {
  /** What each node's list says now: as read with the node, then as this pass last wrote it. */
  private readonly reported: Map<NodeName, AttachedVolume[]>;
  /** (volume, node) pairs removed from the node's list in this pass: their detach may go ahead. */
  private readonly unreported = new Set<string>();
  /** Whose listing claims this pass's are, in the store: its own write ends only those. */
  private readonly lister: string;

  constructor(
    private readonly pass: NodeStatusPass,
    private readonly writer: StatusWriter,
    private readonly leaseMs: number,
  ) {
    this.reported = new Map([...pass.desired.nodes].map(([name, view]) => [name, view.volumesAttached]));
    this.lister = pass.deps.newId();
  }

  /**
   * Removes volumes from the node's list in one write (the list is atomic); the records then say
   * they are not reported. When the write fails nothing is marked, so no detach follows.
   */
  async unreport(nodeName: NodeName, leaving: readonly { volumeId: VolumeId; uniqueName: UniqueVolumeName }[]): Promise<Unreported> {
    const names = new Set(leaving.map((volume) => volume.uniqueName));
    const read = this.reported.get(nodeName) ?? [];
    const next = read.filter((entry) => !names.has(entry.name));
    // The change is "these leave", even where the list as read lacks them: another pass may have listed them since.
    const unread = leaving.filter((volume) => !read.some((entry) => entry.name === volume.uniqueName));
    const base = [...read, ...unread.map((volume) => ({ name: volume.uniqueName, devicePath: '' }))];
    let answer: StatusAnswer;
    try {
      answer = await this.writer.setVolumesAttached(nodeName, next, { base });
    } catch (error) {
      return { ok: false, error };
    }
    this.reported.set(nodeName, next);
    for (const { volumeId } of leaving) {
      this.unreported.add(pairKey(volumeId, nodeName));
      await writeRecord(
        this.pass.deps.store,
        this.pass.actual,
        volumeId,
        this.pass.actual.get(volumeId),
        onRecord((r) => markUnreported(r, nodeName)),
      );
    }
    return { ok: true, answer };
  }

  /** The volume left the node's list in this pass, so a detach that requires it may go ahead. */
  wasUnreported(volumeId: VolumeId, nodeName: NodeName): boolean {
    return this.unreported.has(pairKey(volumeId, nodeName));
  }

  /** End of pass: every managed node's list brought in line with the actual state (best effort). */
  async reportAll(): Promise<void> {
    const actual = await this.freshForAdding();
    const volumesOn = volumesByNode(actual);
    for (const [nodeName, report] of nodeReports(this.withCurrentLists(), actual)) {
      const base = this.reported.get(nodeName) ?? [];
      if (report.changed) {
        let answer: StatusAnswer | undefined;
        await bestEffort(this.pass, `node status of ${nodeName}`, async () => {
          answer = await this.writer.setVolumesAttached(nodeName, report.want, { base });
        });
        if (answer === undefined || answer === 'node-gone') continue;
        this.reported.set(nodeName, report.want);
      }
      await this.rememberReported(nodeName, volumesOn.get(nodeName) ?? [], new Set(report.want.map((entry) => entry.name)));
    }
  }

  /**
   * The actual state to report from. A volume is added to a node's list only under a listing
   * claim taken in the store (a conditional write, refused once a detach holds the volume there):
   * another pass may have begun detaching it since this pass read it, and listing it then would
   * claim a volume EC2 is taking away (invariant 5). Detaches wait for the claim, which the
   * record loses once the node reports it. A volume whose claim is refused or fails is left out.
   */
  private async freshForAdding(): Promise<ActualState> {
    const { deps } = this.pass;
    const byName = new Map([...this.pass.actual.values()].map((record) => [record.uniqueName, record.volumeId]));
    const until = deps.clock() + this.leaseMs;
    const refused: [VolumeId, NodeName][] = [];
    for (const [nodeName, report] of nodeReports(this.withCurrentLists(), this.pass.actual)) {
      const listed = new Set((this.reported.get(nodeName) ?? []).map((entry) => entry.name));
      for (const entry of report.want) {
        const volumeId = byName.get(entry.name);
        if (listed.has(entry.name) || volumeId === undefined) continue;
        const claimed = await bestEffortClaim(this.pass, { volumeId, nodeName, lister: this.lister, until });
        if (!claimed) refused.push([volumeId, nodeName]);
      }
    }
    // The claims refreshed the pass's records; the report leaves out what it may not list.
    const actual = new Map(this.pass.actual);
    for (const [volumeId, nodeName] of refused) {
      const record = actual.get(volumeId);
      if (record) actual.set(volumeId, withoutAttachment(record, nodeName));
    }
    return actual;
  }

  /** The desired state's node views with the lists this pass has already written. */
  private withCurrentLists(): DesiredState {
    const { desired } = this.pass;
    const nodes = new Map(
      [...desired.nodes].map(([name, view]) => [name, { ...view, volumesAttached: this.reported.get(name) ?? view.volumesAttached }]),
    );
    return { ...desired, nodes };
  }

  private async rememberReported(nodeName: NodeName, volumeIds: VolumeId[], listed: Set<string>): Promise<void> {
    const { deps, actual } = this.pass;
    for (const volumeId of volumeIds) {
      const record = actual.get(volumeId);
      const attachment = record?.attachments[nodeName];
      if (record === undefined || attachment === undefined) continue;
      // A listing claim ends here too, so detaches need not wait out its lease.
      if (attachment.reported === listed.has(record.uniqueName) && attachment.listingClaims?.[this.lister] === undefined) continue;
      await writeRecord(
        deps.store,
        actual,
        record.volumeId,
        record,
        onRecord((r) => markReported(r, nodeName, listed.has(r.uniqueName), this.lister)),
      );
    }
  }
}

/** Volume ids by the nodes their records attach them to: one walk instead of one per node. */
function volumesByNode(actual: ActualState): Map<NodeName, VolumeId[]> {
  const index = new Map<NodeName, VolumeId[]>();
  for (const record of actual.values()) {
    for (const nodeName of Object.keys(record.attachments)) {
      const volumeIds = index.get(nodeName) ?? [];
      volumeIds.push(record.volumeId);
      index.set(nodeName, volumeIds);
    }
  }
  return index;
}

/** The listing claim; false (and a report error) when it is refused or the store cannot say. */
async function bestEffortClaim(
  pass: NodeStatusPass,
  claim: { volumeId: VolumeId; nodeName: NodeName; lister: string; until: number },
): Promise<boolean> {
  const { volumeId, nodeName, lister, until } = claim;
  const now = pass.deps.clock();
  let written: Awaited<ReturnType<typeof writeRecord>> | undefined;
  await bestEffort(pass, `listing ${volumeId} on ${nodeName}`, async () => {
    written = await writeRecord(
      pass.deps.store,
      pass.actual,
      volumeId,
      pass.actual.get(volumeId),
      onRecord((r) => claimListing(r, nodeName, lister, until, now)),
    );
  });
  return written?.ok === true;
}

/** The record as this report sees it: without the attachment it may not list. */
function withoutAttachment(record: VolumeRecord, nodeName: NodeName): VolumeRecord {
  const { [nodeName]: _left, ...attachments } = record.attachments;
  return { ...record, attachments };
}
