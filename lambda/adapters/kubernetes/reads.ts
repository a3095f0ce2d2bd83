/**
 * Reading the cluster: the full snapshot for a full pass (every page of six lists) and the
 * targeted reads for a targeted pass (one pod with its claims and volumes, the pods of one
 * node, one node). Objects that are gone come back as undefined, never as an error.
 */
import type { CoreV1Api, StorageV1Api, V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { ClusterSnapshot, KubeNode, KubePod, KubePv, KubePvc } from '../../core/kube.js';
import { claimNamesOf } from '../../core/pod-volumes.js';
import type { PodClosure } from '../../ports/cluster.js';
import { describeApiError, isNotFound } from './api-errors.js';
import { toKubeNode, toKubePod, toKubePv, toKubePvc, toKubeVolumeAttachment } from './mapping.js';
import { listAllPages, type PagingOptions } from './paged-list.js';

export interface ReadClients {
  core: CoreV1Api;
  storage: StorageV1Api;
}

/** Runs `read`; 404 becomes undefined, anything else an error naming what was read. */
export async function getOrUndefined<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new Error(`reading ${what} failed: ${describeApiError(error)}`, { cause: error });
  }
}

export async function readSnapshot({ core, storage }: ReadClients, paging: PagingOptions): Promise<ClusterSnapshot> {
  const [nodes, pods, pvcs, pvs, volumeAttachments] = await Promise.all([
    listAllPages('nodes', (page) => core.listNode(page), paging),
    listAllPages('pods', (page) => core.listPodForAllNamespaces(page), paging),
    listAllPages('persistentvolumeclaims', (page) => core.listPersistentVolumeClaimForAllNamespaces(page), paging),
    listAllPages('persistentvolumes', (page) => core.listPersistentVolume(page), paging),
    listAllPages('volumeattachments', (page) => storage.listVolumeAttachment(page), paging),
  ]);
  return {
    nodes: nodes.map(toKubeNode),
    pods: pods.map(toKubePod),
    pvcs: pvcs.map(toKubePvc),
    pvs: pvs.map(toKubePv),
    volumeAttachments: volumeAttachments.map(toKubeVolumeAttachment),
  };
}

export async function readNodeObject(core: CoreV1Api, name: string): Promise<KubeNode | undefined> {
  const node = await getOrUndefined(`node ${name}`, () => core.readNode({ name }));
  return node && toKubeNode(node);
}

/** The PVCs (namespace, name) and their bound PVs; missing ones are left out for the core to report. */
async function readClaimsOf(core: CoreV1Api, pods: KubePod[]): Promise<{ pvcs: KubePvc[]; pvs: KubePv[] }> {
  const refs = new Map<string, { namespace: string; name: string }>();
  for (const pod of pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    for (const name of claimNamesOf(pod)) refs.set(`${namespace}/${name}`, { namespace, name });
  }
  const claims = await Promise.all(
    [...refs.values()].map((ref) =>
      getOrUndefined(`persistentvolumeclaim ${ref.namespace}/${ref.name}`, () => core.readNamespacedPersistentVolumeClaim(ref)),
    ),
  );
  const pvcs = claims.filter((pvc): pvc is V1PersistentVolumeClaim => pvc !== undefined);
  const pvNames = [...new Set(pvcs.flatMap((pvc) => (pvc.spec?.volumeName ? [pvc.spec.volumeName] : [])))];
  const volumes = await Promise.all(
    pvNames.map((name) => getOrUndefined(`persistentvolume ${name}`, () => core.readPersistentVolume({ name }))),
  );
  const pvs = volumes.filter((pv): pv is V1PersistentVolume => pv !== undefined);
  return { pvcs: pvcs.map(toKubePvc), pvs: pvs.map(toKubePv) };
}

export async function readPodClosure(core: CoreV1Api, namespace: string, name: string): Promise<PodClosure> {
  const found = await getOrUndefined(`pod ${namespace}/${name}`, () => core.readNamespacedPod({ namespace, name }));
  if (found === undefined) return { pod: undefined, pvcs: [], pvs: [] };
  const pod = toKubePod(found);
  return { pod, ...(await readClaimsOf(core, [pod])) };
}

export async function readPodsOnNode(
  core: CoreV1Api,
  nodeName: string,
  paging: PagingOptions,
): Promise<{ pods: KubePod[]; pvcs: KubePvc[]; pvs: KubePv[] }> {
  const fieldSelector = `spec.nodeName=${nodeName}`;
  const listed = await listAllPages(`pods on node ${nodeName}`, (page) => core.listPodForAllNamespaces({ ...page, fieldSelector }), paging);
  const pods = listed.map(toKubePod);
  return { pods, ...(await readClaimsOf(core, pods)) };
}
