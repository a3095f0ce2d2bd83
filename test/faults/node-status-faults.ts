/**
 * The node-status write failing the way a real API server fails it, beyond a conflict: 403 when
 * an admission policy or RBAC change refuses our identity's `nodes/status` patch (infra/k8s
 * ships such a policy), 500 when the server or etcd fails for longer than the client's retries
 * (4 attempts) last. The detach behind an unreport must then wait: a node still listing the
 * volume while EC2 detaches it breaks invariant 5.
 */
import type { Random } from '../../sandbox/generate/random.js';
import type { Fault } from './fault.js';

export function pickNodeStatusFault(random: Random): Fault {
  return {
    kind: 'kube-error',
    method: 'PATCH',
    path: '/api/v1/nodes/[^/]+/status',
    code: random.pick([403, 500]),
    count: random.between(1, 2),
  };
}
