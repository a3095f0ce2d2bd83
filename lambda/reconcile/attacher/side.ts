/**
 * What attacher mode keeps for one pass (its side of the seam, reports.ts): the VolumeAttachments
 * the pass read, which it already wrote, and the listing PV finalizers are judged against.
 */
import type { AttacherView, VaTarget } from '../../core/attacher/targets.js';
import type { KubePv } from '../../core/kube.js';
import type { AttacherWrites } from '../../ports/cluster.js';

export interface AttacherSide {
  cluster: AttacherWrites;
  targets: readonly VaTarget[];
  /** Objects whose status this pass already wrote. */
  written: Set<string>;
  /** The full listing (full passes only): PV finalizers are judged against every VolumeAttachment. */
  listing?: Pick<AttacherView, 'pvs' | 'volumeAttachments'>;
  /** The PVs this pass read, by name: the first attempt of each PV finalizer patch starts from them. */
  pvRead: ReadonlyMap<string, KubePv>;
}
