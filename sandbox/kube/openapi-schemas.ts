/**
 * OpenAPI v3 schemas for the kinds served, generated from @kubernetes/client-node's model
 * attribute maps (the client is generated from upstream's OpenAPI, so each map lists every
 * field of the upstream type with its type and format). Served kinds keep their upstream
 * component names (`io.k8s.api.core.v1.Node`) and carry `x-kubernetes-group-version-kind`;
 * nested types are named after the client's model classes.
 */
import * as models from '@kubernetes/client-node';
import type { ResourceType } from './resources.js';

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}

interface ModelClass {
  getAttributeTypeMap(): Attribute[];
}

export type Schema = Record<string, unknown>;

/** The client's model class for each served kind (events are CoreV1Event, as core/v1 and events.k8s.io both have one). */
const modelOfKind: Record<string, string> = {
  Namespace: 'V1Namespace',
  Node: 'V1Node',
  Pod: 'V1Pod',
  PersistentVolume: 'V1PersistentVolume',
  PersistentVolumeClaim: 'V1PersistentVolumeClaim',
  Event: 'CoreV1Event',
  VolumeAttachment: 'V1VolumeAttachment',
  CSINode: 'V1CSINode',
  CSIDriver: 'V1CSIDriver',
  StorageClass: 'V1StorageClass',
  Lease: 'V1Lease',
};

function modelClass(name: string): ModelClass | undefined {
  const candidate = (models as unknown as Record<string, unknown>)[name];
  return typeof candidate === 'function' && 'getAttributeTypeMap' in candidate ? (candidate as unknown as ModelClass) : undefined;
}

export function componentName(type: ResourceType): string {
  const group = type.group === '' ? 'core' : type.group.split('.')[0];
  return `io.k8s.api.${group}.${type.version}.${type.kind}`;
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The schema of one client type string ("string", "Array<V1Taint>", "{ [key: string]: string; }", …). */
function schemaOf(type: string, format: string, needed: string[]): Schema {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: 'array', items: schemaOf(array[1] as string, '', needed) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOf(map[1] as string, '', needed) };
  switch (type) {
    case 'string':
      return format ? { type: 'string', format } : { type: 'string' };
    case 'number':
      return format === 'int32' || format === 'int64' ? { type: 'integer', format } : { type: 'number', ...(format ? { format } : {}) };
    case 'boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'IntOrString':
      return { 'x-kubernetes-int-or-string': true };
    case 'any':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    default:
      if (!modelClass(type)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      needed.push(type);
      return ref(type);
  }
}

function objectSchema(model: ModelClass, needed: string[]): Schema {
  const properties: Record<string, Schema> = {};
  for (const attribute of model.getAttributeTypeMap()) properties[attribute.baseName] = schemaOf(attribute.type, attribute.format, needed);
  return { type: 'object', properties };
}

/** components.schemas for `types`: each kind under its upstream name, then every type it reaches. */
export function schemasFor(types: readonly ResourceType[]): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  const needed: string[] = [];
  for (const type of types) {
    const model = modelClass(modelOfKind[type.kind] ?? '');
    if (!model) continue;
    schemas[componentName(type)] = {
      ...objectSchema(model, needed),
      'x-kubernetes-group-version-kind': [{ group: type.group, version: type.version, kind: type.kind }],
    };
  }
  for (let name = needed.shift(); name !== undefined; name = needed.shift()) {
    if (schemas[name]) continue;
    schemas[name] = objectSchema(modelClass(name) as ModelClass, needed);
  }
  return schemas;
}
