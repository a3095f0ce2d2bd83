/**
 * The writes other cluster components make, played by tests: the kubelet (volumesInUse,
 * Ready, pod deletion), an administrator (the out-of-service taint) and the PV controller
 * (binding a claim). Each is a real write: it bumps resourceVersion like any other.
 */
import { asMap, asMaps, text, type JsonMap } from './json.js';
import { timestamp } from './object-meta.js';
import type { Registry } from './registry.js';
import { findByKind, type ResourceType } from './resources.js';
import type { KubeObject } from './store.js';

export const outOfServiceTaint = 'node.kubernetes.io/out-of-service';

export interface Kubelet {
  setVolumesInUse(node: string, uniqueNames: string[]): void;
  setReady(node: string, ready: boolean): void;
  setOutOfService(node: string, on: boolean): void;
  /** graceful: deletionTimestamp now, removal on a later non-graceful call; otherwise removed at once (finalizers still hold it). */
  deletePod(namespace: string, name: string, options?: { graceful?: boolean }): void;
  /** Sets `status.phase` (e.g. Running, Succeeded, Failed). */
  setPodPhase(namespace: string, name: string, phase: string): void;
  /** The node object goes, as the cloud node-lifecycle controller removes it (the instance may live on). */
  deleteNode(name: string): void;
}

const trusted = { trusted: true };

const kinds = {
  node: findByKind('Node') as ResourceType,
  pod: findByKind('Pod') as ResourceType,
  pvc: findByKind('PersistentVolumeClaim') as ResourceType,
  pv: findByKind('PersistentVolume') as ResourceType,
};

function status(object: KubeObject): JsonMap {
  return asMap(object.status);
}

export function createKubelet(registry: Registry, now: () => Date = () => new Date()): Kubelet {
  const writeStatus = (type: ResourceType, namespace: string | undefined, name: string, change: (o: KubeObject) => KubeObject) => {
    registry.update(type, namespace, name, change(registry.get(type, namespace, name)), 'status', trusted);
  };
  return {
    setVolumesInUse(node, uniqueNames) {
      writeStatus(kinds.node, undefined, node, (n) => ({ ...n, status: { ...status(n), volumesInUse: [...uniqueNames] } }));
    },
    setReady(node, ready) {
      writeStatus(kinds.node, undefined, node, (n) => {
        const at = timestamp(now());
        const conditions = asMaps(status(n).conditions).filter((c) => c.type !== 'Ready');
        const previous = asMaps(status(n).conditions).find((c) => c.type === 'Ready');
        const value = ready ? 'True' : 'False';
        const transition = previous?.status === value ? text(previous.lastTransitionTime) : at;
        const condition = {
          type: 'Ready',
          status: value,
          lastHeartbeatTime: at,
          lastTransitionTime: transition,
          reason: ready ? 'KubeletReady' : 'KubeletNotReady',
          message: ready ? 'kubelet is posting ready status' : 'kubelet stopped posting node status',
        };
        return { ...n, status: { ...status(n), conditions: [...conditions, condition] } };
      });
    },
    setOutOfService(node, on) {
      const current = registry.get(kinds.node, undefined, node);
      const spec = asMap(current.spec);
      const taints = asMaps(spec.taints).filter((t) => t.key !== outOfServiceTaint);
      if (on) taints.push({ key: outOfServiceTaint, value: 'nodeshutdown', effect: 'NoExecute', timeAdded: timestamp(now()) });
      const { taints: _old, ...rest } = spec;
      const next = taints.length > 0 ? { ...rest, taints } : rest;
      registry.update(kinds.node, undefined, node, { ...current, spec: next }, undefined, trusted);
    },
    deletePod(namespace, name, options = {}) {
      registry.delete(kinds.pod, namespace, name, options.graceful ? {} : { gracePeriodSeconds: 0 });
    },
    setPodPhase(namespace, name, phase) {
      writeStatus(kinds.pod, namespace, name, (p) => ({ ...p, status: { ...status(p), phase } }));
    },
    deleteNode(name) {
      registry.delete(kinds.node, undefined, name, {});
    },
  };
}

/** What the PV controller does on binding: claimRef on the PV, volumeName on the claim, both Bound. */
export function bindClaim(registry: Registry, namespace: string, claim: string, volume: string): void {
  const pvc = registry.get(kinds.pvc, namespace, claim);
  const pv = registry.get(kinds.pv, undefined, volume);
  const claimRef = {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace,
    name: claim,
    uid: pvc.metadata.uid as string,
    resourceVersion: pvc.metadata.resourceVersion as string,
  };
  const boundPv = registry.update(kinds.pv, undefined, volume, { ...pv, spec: { ...(pv.spec ?? {}), claimRef } }, undefined, trusted);
  registry.update(kinds.pv, undefined, volume, { ...boundPv, status: { ...status(boundPv), phase: 'Bound' } }, 'status', trusted);
  const boundPvc = registry.update(
    kinds.pvc,
    namespace,
    claim,
    { ...pvc, spec: { ...(pvc.spec ?? {}), volumeName: volume } },
    undefined,
    trusted,
  );
  const accessModes = ((pv.spec ?? {}) as Record<string, unknown>).accessModes;
  registry.update(
    kinds.pvc,
    namespace,
    claim,
    { ...boundPvc, status: { ...status(boundPvc), phase: 'Bound', ...(accessModes ? { accessModes } : {}) } },
    'status',
    trusted,
  );
}
