/** What an attacher-mode pass needs: the shared ports and the Cluster port's reads and attacher writes. */
import type { AttacherWrites, ClusterReads } from '../../ports/cluster.js';
import type { ReconcileDeps } from '../pass/types.js';

export type AttacherDeps = ReconcileDeps & { cluster: ClusterReads & AttacherWrites };
