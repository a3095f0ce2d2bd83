/**
 * Reading the cluster: the full snapshot for a full pass (every page of five lists) and the
 * targeted reads for a targeted pass (one pod with its claims and volumes, the pods of one
 * node, one node). Read as plain JSON and mapped page by page into the core's shapes
 * (json-mapping.ts). Objects that are gone come back as undefined, never as an error.
 */
import type { ClusterSnapshot, KubeNode, KubePod, KubePv, KubePvc } from '../../core/kube.js';
import { claimNamesOf } from '../../core/pod-volumes.js';
import type { PodClosure } from '../../ports/cluster.js';
import { describeApiError, isNotFound } from './api-errors.js';
import type { JsonGet, Query } from './json-get.js';
import { nodeFromJson, podFromJson, pvFromJson, pvcFromJson, volumeAttachmentFromJson } from './json-mapping.js';
import { listAllPages, type Page, type PageRequest, type PagingOptions } from './paged-list.js';

export interface ReadClients {
  getJson: JsonGet;
}

export const PATHS = {
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  persistentvolumeclaims: '/api/v1/persistentvolumeclaims',
  persistentvolumes: '/api/v1/persistentvolumes',
  volumeattachments: '/apis/storage.k8s.io/v1/volumeattachments',
  csinodes: '/apis/storage.k8s.io/v1/csinodes',
} as const;

const segment = encodeURIComponent;

/** Runs `read`; 404 becomes undefined, anything else an error naming what was read. */
export async function getOrUndefined<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new Error(`reading ${what} failed: ${describeApiError(error)}`, { cause: error });
  }
}

/** One page of a list, its items mapped as they arrive (the page's JSON is dropped after). */
export function jsonPages<T>(getJson: JsonGet, path: string, map: (item: unknown) => T, query: Query = {}) {
  return async (page: PageRequest): Promise<Page<T>> => {
    const body = (await getJson(path, { ...query, limit: page.limit, continue: page._continue })) as {
      items?: unknown;
      metadata?: { continue?: unknown; resourceVersion?: unknown };
    } | null;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.items)) return {};
    const { continue: token, resourceVersion } = body.metadata ?? {};
    return {
      items: body.items.map(map),
      metadata: {
        _continue: typeof token === 'string' ? token : undefined,
        ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
      },
    };
  };
}

export function listNodes({ getJson }: ReadClients, paging: PagingOptions): Promise<KubeNode[]> {
  return listAllPages('nodes', jsonPages(getJson, PATHS.nodes, nodeFromJson), paging);
}

export async function readSnapshot(clients: ReadClients, paging: PagingOptions): Promise<ClusterSnapshot> {
  const { getJson } = clients;
  const [nodes, pods, pvcs, pvs, volumeAttachments] = await Promise.all([
    listNodes(clients, paging),
    listAllPages('pods', jsonPages(getJson, PATHS.pods, podFromJson), paging),
    listAllPages('persistentvolumeclaims', jsonPages(getJson, PATHS.persistentvolumeclaims, pvcFromJson), paging),
    listAllPages('persistentvolumes', jsonPages(getJson, PATHS.persistentvolumes, pvFromJson), paging),
    listAllPages('volumeattachments', jsonPages(getJson, PATHS.volumeattachments, volumeAttachmentFromJson), paging),
  ]);
  return { nodes, pods, pvcs, pvs, volumeAttachments };
}

export async function readNodeObject({ getJson }: ReadClients, name: string): Promise<KubeNode | undefined> {
  const node = await getOrUndefined(`node ${name}`, () => getJson(`${PATHS.nodes}/${segment(name)}`));
  return node === undefined ? undefined : nodeFromJson(node);
}

/** The PVCs (namespace, name) and their bound PVs; missing ones are left out for the core to report. */
async function readClaimsOf({ getJson }: ReadClients, pods: KubePod[]): Promise<{ pvcs: KubePvc[]; pvs: KubePv[] }> {
  const refs = new Map<string, { namespace: string; name: string }>();
  for (const pod of pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    for (const name of claimNamesOf(pod)) refs.set(`${namespace}/${name}`, { namespace, name });
  }
  const claims = await Promise.all(
    [...refs.values()].map(async (ref) => {
      const path = `/api/v1/namespaces/${segment(ref.namespace)}/persistentvolumeclaims/${segment(ref.name)}`;
      const pvc = await getOrUndefined(`persistentvolumeclaim ${ref.namespace}/${ref.name}`, () => getJson(path));
      return pvc === undefined ? undefined : pvcFromJson(pvc);
    }),
  );
  const pvcs = claims.filter((pvc): pvc is KubePvc => pvc !== undefined);
  const pvNames = [...new Set(pvcs.flatMap((pvc) => (pvc.spec?.volumeName ? [pvc.spec.volumeName] : [])))];
  const volumes = await Promise.all(
    pvNames.map(async (name) => {
      const pv = await getOrUndefined(`persistentvolume ${name}`, () => getJson(`${PATHS.persistentvolumes}/${segment(name)}`));
      return pv === undefined ? undefined : pvFromJson(pv);
    }),
  );
  return { pvcs, pvs: volumes.filter((pv): pv is KubePv => pv !== undefined) };
}

export async function readPodClosure(clients: ReadClients, namespace: string, name: string): Promise<PodClosure> {
  const path = `/api/v1/namespaces/${segment(namespace)}/pods/${segment(name)}`;
  const found = await getOrUndefined(`pod ${namespace}/${name}`, () => clients.getJson(path));
  if (found === undefined) return { pod: undefined, pvcs: [], pvs: [] };
  const pod = podFromJson(found);
  return { pod, ...(await readClaimsOf(clients, [pod])) };
}

export async function readPodsOnNode(
  clients: ReadClients,
  nodeName: string,
  paging: PagingOptions,
): Promise<{ pods: KubePod[]; pvcs: KubePvc[]; pvs: KubePv[] }> {
  const fieldSelector = `spec.nodeName=${nodeName}`;
  const pages = jsonPages(clients.getJson, PATHS.pods, podFromJson, { fieldSelector });
  const pods = await listAllPages(`pods on node ${nodeName}`, pages, paging);
  return { pods, ...(await readClaimsOf(clients, pods)) };
}
