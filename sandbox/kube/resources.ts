/**
 * The resource types this server serves, with the facts discovery, routing and the
 * per-type rules need. Status handling follows each type's registry strategy upstream
 * (pkg/registry/...): which types have a `status` subresource, and which reset
 * `status` on create.
 */

export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  resource: string; // plural, as in URLs
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** Has a `/status` subresource: main-resource writes keep status, status writes keep spec. */
  hasStatus: boolean;
  /** The create strategy drops `status` (pods, PVCs, PVs, VolumeAttachments); nodes keep it. */
  resetStatusOnCreate: boolean;
  /** Field labels the server accepts in `fieldSelector` (besides metadata.name/namespace). */
  fieldLabels: string[];
  /** PUT of a missing object creates it (events do; most types answer 404). */
  createOnUpdate: boolean;
  /** DELETE answers with the deleted object (registry `ReturnDeletedObject`); otherwise with a Success Status. */
  returnsDeletedObject: boolean;
  /** The strategy sets `metadata.generation` (pods); other kinds here have none. */
  hasGeneration: boolean;
  /** Strategy `AllowUnconditionalUpdate`: false makes a PUT without resourceVersion 422. */
  unconditionalUpdate: boolean;
  /** The status strategy keeps metadata changes (nodes); others reset them (metav1.ResetObjectMetaForStatus). */
  statusKeepsMetadata: boolean;
}

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function type(t: Partial<ResourceType> & Pick<ResourceType, 'resource' | 'singular' | 'kind' | 'namespaced'>): ResourceType {
  return {
    group: '',
    version: 'v1',
    shortNames: [],
    hasStatus: false,
    resetStatusOnCreate: false,
    fieldLabels: [],
    createOnUpdate: false,
    returnsDeletedObject: true,
    hasGeneration: false,
    unconditionalUpdate: true,
    statusKeepsMetadata: false,
    ...t,
  };
}

export const resourceTypes: readonly ResourceType[] = [
  type({
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    returnsDeletedObject: false,
    hasStatus: true,
    fieldLabels: ['status.phase'],
  }),
  type({
    resource: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    returnsDeletedObject: false,
    hasStatus: true,
    statusKeepsMetadata: true,
    fieldLabels: ['spec.unschedulable'],
  }),
  type({
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    hasStatus: true,
    hasGeneration: true,
    resetStatusOnCreate: true,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  }),
  type({
    resource: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    hasStatus: true,
    resetStatusOnCreate: true,
  }),
  type({
    resource: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    hasStatus: true,
    resetStatusOnCreate: true,
  }),
  type({
    resource: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    createOnUpdate: true,
    returnsDeletedObject: false,
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  }),
  type({
    group: 'storage.k8s.io',
    resource: 'volumeattachments',
    singular: 'volumeattachment',
    kind: 'VolumeAttachment',
    namespaced: false,
    hasStatus: true,
    unconditionalUpdate: false,
    resetStatusOnCreate: true,
  }),
  type({ group: 'storage.k8s.io', resource: 'csinodes', singular: 'csinode', kind: 'CSINode', namespaced: false }),
  type({ group: 'storage.k8s.io', resource: 'csidrivers', singular: 'csidriver', kind: 'CSIDriver', namespaced: false }),
  type({
    group: 'storage.k8s.io',
    resource: 'storageclasses',
    singular: 'storageclass',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
  }),
  // pkg/registry/coordination/lease: PUT may create, and an update must name the resourceVersion it replaces.
  type({
    group: 'coordination.k8s.io',
    resource: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    returnsDeletedObject: false,
    createOnUpdate: true,
    unconditionalUpdate: false,
  }),
];

export const resourceVerbs = verbs;
export const statusVerbs = ['get', 'patch', 'update'];

export function apiVersionOf(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export function findByResource(group: string, version: string, resource: string): ResourceType | undefined {
  return resourceTypes.find((t) => t.group === group && t.version === version && t.resource === resource);
}

/** Looks a type up by kind ('Pod'), plural ('pods') or short name ('po'), case-insensitively. */
export function findByKind(kind: string): ResourceType | undefined {
  const k = kind.toLowerCase();
  return resourceTypes.find((t) => t.kind.toLowerCase() === k || t.resource === k || t.singular === k || t.shortNames.includes(k));
}

export function groupsServed(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of resourceTypes) seen.set(`${t.group}/${t.version}`, { group: t.group, version: t.version });
  return [...seen.values()];
}
