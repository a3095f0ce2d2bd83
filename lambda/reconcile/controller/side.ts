/**
 * What controller mode keeps for one pass (its side of the seam, reports.ts): the one writer of
 * node status, the pairs whose VolumeAttachment may be out of line, PV names for references and
 * events, and the full pass's listing of VolumeAttachments.
 */
import type { ClusterSnapshot } from '../../core/kube.js';
import type { VolumeId } from '../../core/types.js';
import type { ClusterReads, ControllerWrites } from '../../ports/cluster.js';
import type { NodeStatusUpdater } from './node-status.js';

export interface ControllerSide {
  cluster: ClusterReads & ControllerWrites;
  /** The only writer of node status in this pass: owns what each node's list says and what left it. */
  nodeStatus: NodeStatusUpdater;
  /** (volume, node) pairs (`pairKey`) whose attachment changed in this pass: their VolumeAttachment is brought in line. */
  touched: Set<string>;
  /** PV name of each volume, for VolumeAttachment references and event texts. */
  pvNames: Map<VolumeId, string>;
  /** Every VolumeAttachment as a full pass listed it; absent in targeted passes. */
  listed?: ClusterSnapshot;
}
