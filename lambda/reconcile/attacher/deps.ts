/** What an attacher-mode pass needs: the shared ports and the Cluster port's reads and attacher writes. */
import type { AttacherWrites, ClusterReads } from '../../ports/cluster.js';
import type { LeaseLock } from '../../ports/lease-lock.js';
import type { ReconcileDeps } from '../pass/types.js';

/** The csi-attacher sidecar's Lease, which a shadow pass checks exists (`namespace/name` for the explanation). */
export interface SidecarLeaseReader {
  where: string;
  lock: Pick<LeaseLock, 'get'>;
}

export type AttacherDeps = ReconcileDeps & {
  cluster: ClusterReads & AttacherWrites;
  /** Absent when the operator said no sidecar runs (SIDECAR_GONE=true): nothing to check. */
  leaseCheck?: SidecarLeaseReader;
};
