/** What a controller-mode pass needs: the shared ports and the Cluster port's reads and controller writes. */
import type { ClusterReads, ControllerWrites } from '../../ports/cluster.js';
import type { ReconcileDeps } from '../pass/types.js';

export type ControllerDeps = ReconcileDeps & { cluster: ClusterReads & ControllerWrites };
