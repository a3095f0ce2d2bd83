/**
 * The Kubernetes API calls of the parts whose adapter runs are not recorded here yet, declared from
 * their specifications (issues 11 and 12, DESIGN §3a). Controller mode's calls are recorded from a
 * run of every adapter operation against the local API server (rbac.test.ts); attacher mode's
 * list is to be replaced the same way, by the request log of a run of every attacher-mode
 * operation (the attacher e2e's `sandbox.requests()` are `ApiCall`s already).
 */
import { attacherWatch } from '../../lambda/reconcile/attacher/watch.js';
import type { ApiCall } from './rbac-support.js';

const core = (resource: string, verb: string, extra: Partial<ApiCall> = {}): ApiCall => ({ group: '', resource, verb, ...extra });
const storage = (resource: string, verb: string, extra: Partial<ApiCall> = {}): ApiCall => ({
  group: 'storage.k8s.io',
  resource,
  verb,
  ...extra,
});

/** The EBS CSI add-on's namespace and the csi-attacher's leader-election Lease ("external-attacher-leader-" + driver name, dots → dashes). */
export const ADDON_NAMESPACE = 'kube-system';
export const SIDECAR_LEASE = 'external-attacher-leader-ebs-csi-aws-com';

/** Attacher mode: VAs are desired state, CSINodes map nodes to instances, PVs carry volume ids and our finalizer. */
export const ATTACHER_MODE_CALLS: readonly ApiCall[] = [
  // Full pass: every VA, PV, CSINode and node (paged lists); the watcher lists and watches the VAs,
  // and the PVs, CSINodes and nodes it caches for their attaches (attacher/watch.ts).
  storage('volumeattachments', 'list'),
  ...[...attacherWatch.kinds, ...(attacherWatch.cached ?? [])].map((kind) =>
    ['volumeattachments', 'csinodes'].includes(kind) ? storage(kind, 'watch') : core(kind, 'watch'),
  ),
  storage('volumeattachments', 'get', { name: 'csi-0123' }),
  // Finalizer and node-id annotation in one patch; status on its subresource.
  storage('volumeattachments', 'patch', { name: 'csi-0123' }),
  storage('volumeattachments', 'patch', { subresource: 'status', name: 'csi-0123' }),
  storage('csinodes', 'list'),
  storage('csinodes', 'get', { name: 'node-1' }),
  core('persistentvolumes', 'list'),
  core('persistentvolumes', 'get', { name: 'pv-db' }),
  // The PV finalizer: appended before an attach, removed once the PV is deleted and unreferenced.
  core('persistentvolumes', 'patch', { name: 'pv-db' }),
  core('nodes', 'list'),
  core('nodes', 'get', { name: 'node-1' }),
  // A pod's Scheduled event (with the event exporter): the pod's node and claims name the VAs to poll.
  core('pods', 'get', { namespace: 'shop', name: 'db-0' }),
  core('persistentvolumeclaims', 'get', { namespace: 'shop', name: 'data-db-0' }),
  // Events share the controller-mode adapter: create, or get + patch of `count` on a repeat.
  core('events', 'create', { namespace: 'shop' }),
  core('events', 'get', { namespace: 'shop', name: 'db-0.attach' }),
  core('events', 'patch', { namespace: 'shop', name: 'db-0.attach' }),
];

/** The out-of-service taint on a stopped or terminated instance's node (both modes, optional). */
export const TAINT_CALLS: readonly ApiCall[] = [core('nodes', 'patch', { name: 'node-1' })];

/** The fence: take the sidecar's Lease when absent, else read and renew it (attacher mode takeover, optional). */
export const LEASE_FENCE_CALLS: readonly ApiCall[] = [
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'get', namespace: ADDON_NAMESPACE, name: SIDECAR_LEASE },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'create', namespace: ADDON_NAMESPACE },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: ADDON_NAMESPACE, name: SIDECAR_LEASE },
];
