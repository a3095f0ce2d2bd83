/**
 * Patch strategies of the list fields this server's types carry, transcribed from the
 * `patchStrategy`/`patchMergeKey`/`listType` tags in k8s.io/api. A list not named here is
 * atomic: a strategic merge patch replaces it whole. Notably `status.volumesAttached`,
 * `status.volumesInUse` and `spec.taints` of a Node are `+listType=atomic` with no patch
 * strategy, while `metadata.finalizers` is `patchStrategy:"merge"` (a set of strings).
 */

export interface FieldSchema {
  /** List of objects merged element by element on this key. */
  mergeKey?: string;
  /** List of scalars merged as a set (`$deleteFromPrimitiveList/<field>` removes). */
  primitiveMerge?: boolean;
  /** Schemas of sub-fields (of a map, or of each element of a keyed list). */
  fields?: Record<string, FieldSchema>;
}

const metadata: FieldSchema = {
  fields: { finalizers: { primitiveMerge: true }, ownerReferences: { mergeKey: 'uid' } },
};

const conditions: FieldSchema = { mergeKey: 'type' };

const container: FieldSchema = {
  mergeKey: 'name',
  fields: {
    ports: { mergeKey: 'containerPort' },
    env: { mergeKey: 'name' },
    volumeMounts: { mergeKey: 'mountPath' },
    volumeDevices: { mergeKey: 'devicePath' },
  },
};

const schemas: Record<string, FieldSchema> = {
  Node: {
    fields: {
      metadata,
      spec: { fields: { podCIDRs: { primitiveMerge: true } } },
      status: { fields: { conditions, addresses: { mergeKey: 'type' } } },
    },
  },
  Pod: {
    fields: {
      metadata,
      spec: {
        fields: {
          containers: container,
          initContainers: container,
          ephemeralContainers: container,
          volumes: { mergeKey: 'name' },
          imagePullSecrets: { mergeKey: 'name' },
          hostAliases: { mergeKey: 'ip' },
        },
      },
      status: { fields: { conditions, podIPs: { mergeKey: 'ip' }, hostIPs: { mergeKey: 'ip' } } },
    },
  },
  PersistentVolumeClaim: { fields: { metadata, status: { fields: { conditions } } } },
  Namespace: { fields: { metadata, status: { fields: { conditions } } } },
  CSINode: { fields: { metadata, spec: { fields: { drivers: { mergeKey: 'name' } } } } },
};

const defaultSchema: FieldSchema = { fields: { metadata } };

export function patchSchemaFor(kind: string): FieldSchema {
  return schemas[kind] ?? defaultSchema;
}
