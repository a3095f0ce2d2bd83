/**
 * Which desired attachments are not yet done: attached to the node's own instance and reported in
 * the node's `volumesAttached` (where kcm decides, the node's list is kcm's to write and our report
 * is the VolumeAttachment's status). A pass converged only when this list is empty (see `summarize`).
 */
import { compareText } from './compare.js';
import type { ActualState, DesiredState, NodeName, VolumeId } from './types.js';

export interface NotAttached {
  volumeId: VolumeId;
  nodeName: NodeName;
  /** `not attached`, the record's state (`attaching`, `detaching`, `uncertain`), `attached, not reported` or `attached to a previous instance`. */
  state: string;
}

export function notAttached(desired: DesiredState, actual: ActualState): NotAttached[] {
  const missing: NotAttached[] = [];
  const kcmReports = desired.decidedBy.kind === 'kcm';
  for (const wanted of desired.attachments) {
    const attachment = actual.get(wanted.volumeId)?.attachments[wanted.nodeName];
    const state =
      attachment === undefined
        ? 'not attached'
        : attachment.instanceId !== wanted.instanceId
          ? 'attached to a previous instance'
          : attachment.state !== 'attached'
            ? attachment.state
            : attachment.reported || kcmReports
              ? undefined
              : 'attached, not reported';
    if (state !== undefined) missing.push({ volumeId: wanted.volumeId, nodeName: wanted.nodeName, state });
  }
  return missing.sort((a, b) => compareText(a.volumeId, b.volumeId) || compareText(a.nodeName, b.nodeName));
}
