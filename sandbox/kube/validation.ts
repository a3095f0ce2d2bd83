/**
 * The validation rules a write must pass (422 Invalid otherwise): object names, and for the
 * types the controller writes or reads, the fields upstream requires (pkg/apis/core/validation,
 * pkg/apis/storage/validation). Seeded fixtures pass the same rules, so a fixture cannot hold
 * what a real cluster would never store.
 */
import { asMap, text } from './json.js';
import type { ResourceType } from './resources.js';
import type { KubeObject } from './store.js';
import type { StatusCause } from './status.js';
import { errors } from './status.js';

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

function invalidName(field: string, value: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: "${value}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
  };
}

function nameCauses(object: KubeObject): StatusCause[] {
  const name = object.metadata.name as unknown;
  if (typeof name !== 'string' || name === '') {
    return [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }];
  }
  return name.length <= 253 && dnsSubdomain.test(name) ? [] : [invalidName('metadata.name', name)];
}

// ValidateCSIDriverName (pkg/apis/core/validation): at most 63 characters of this shape.
const csiDriverName = /^[a-zA-Z0-9][-a-zA-Z0-9_.]{0,61}[a-zA-Z-0-9]$/;

function attacherCauses(attacher: unknown): StatusCause[] {
  if (!attacher) return [required('spec.attacher')];
  const name = text(attacher);
  if (name.length > 63)
    return [{ reason: 'FieldValueTooLong', field: 'spec.attacher', message: 'Too long: may not be more than 63 bytes' }];
  if (csiDriverName.test(name)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.attacher',
      message: `Invalid value: "${name}": a valid CSI driver name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    },
  ];
}

function volumeAttachmentCauses(object: KubeObject): StatusCause[] {
  const spec = asMap(object.spec);
  const causes: StatusCause[] = [...attacherCauses(spec.attacher)];
  if (!spec.nodeName) causes.push(required('spec.nodeName'));
  const source = asMap(spec.source);
  const sources = [source.persistentVolumeName, source.inlineVolumeSpec].filter((s) => s !== undefined && s !== null);
  if (sources.length !== 1) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec.source',
      message: 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    });
  }
  return causes;
}

function eventCauses(object: KubeObject): StatusCause[] {
  const involved = asMap(object.involvedObject);
  if (involved.namespace !== undefined && involved.namespace !== '' && involved.namespace !== object.metadata.namespace) {
    return [
      {
        reason: 'FieldValueInvalid',
        field: 'involvedObject.namespace',
        message: `Invalid value: "${text(involved.namespace)}": does not match event.namespace`,
      },
    ];
  }
  return [];
}

function podCauses(object: KubeObject): StatusCause[] {
  const containers = (object.spec as Record<string, unknown> | undefined)?.containers;
  return Array.isArray(containers) && containers.length > 0 ? [] : [required('spec.containers')];
}

function claimCauses(object: KubeObject): StatusCause[] {
  const spec = asMap(object.spec);
  const causes: StatusCause[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0)
    causes.push({ ...required('spec.accessModes'), message: 'Required value: at least 1 access mode is required' });
  if (asMap(asMap(spec.resources).requests).storage === undefined) causes.push(required('spec.resources[storage]'));
  return causes;
}

const PV_SOURCES = ['csi', 'awsElasticBlockStore', 'hostPath', 'local', 'nfs', 'iscsi', 'fc', 'rbd', 'cephfs', 'cinder'];

function persistentVolumeCauses(object: KubeObject): StatusCause[] {
  const spec = asMap(object.spec);
  const causes: StatusCause[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0)
    causes.push({ ...required('spec.accessModes'), message: 'Required value: must specify at least 1 access mode' });
  const capacity = asMap(spec.capacity);
  if (Object.keys(capacity).length === 0) causes.push(required('spec.capacity'));
  else if (capacity.storage === undefined || Object.keys(capacity).length > 1)
    causes.push({ reason: 'FieldValueNotSupported', field: 'spec.capacity', message: 'Unsupported value: supported values: "storage"' });
  if (PV_SOURCES.filter((source) => spec[source] !== undefined).length !== 1)
    causes.push({ reason: 'FieldValueRequired', field: 'spec', message: 'Required value: must specify a volume type' });
  return causes;
}

// ValidateLeaseSpec (pkg/apis/coordination/validation).
function leaseCauses(object: KubeObject): StatusCause[] {
  const spec = asMap(object.spec);
  const causes: StatusCause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.leaseDurationSeconds',
      message: `Invalid value: ${duration}: must be greater than 0`,
    });
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.leaseTransitions',
      message: `Invalid value: ${transitions}: must be greater than or equal to 0`,
    });
  return causes;
}

const kindRules: Record<string, (object: KubeObject) => StatusCause[]> = {
  Lease: leaseCauses,
  VolumeAttachment: volumeAttachmentCauses,
  PersistentVolumeClaim: claimCauses,
  PersistentVolume: persistentVolumeCauses,
  Event: eventCauses,
  Pod: podCauses,
};

/** Throws 422 when `object` is not a valid `type`. */
export function validate(type: ResourceType, object: KubeObject): void {
  const causes = [...nameCauses(object), ...(kindRules[type.kind]?.(object) ?? [])];
  if (causes.length > 0) throw errors.invalid(type, String(object.metadata.name ?? ''), causes);
}

/** Throws 422 when an update changes what upstream declares immutable. */
export function validateUpdate(type: ResourceType, current: KubeObject, next: KubeObject): void {
  validate(type, next);
  const causes: StatusCause[] = [];
  if (type.kind === 'VolumeAttachment' && JSON.stringify(current.spec) !== JSON.stringify(next.spec)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: field is immutable' });
  }
  const oldProvider = text(asMap(current.spec).providerID);
  if (type.kind === 'Node' && oldProvider !== '' && oldProvider !== text(asMap(next.spec).providerID)) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec.providerID',
      message: 'Forbidden: node updates may not change providerID except from "" to valid',
    });
  }
  const before = new Set(current.metadata.finalizers ?? []);
  const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
  if (current.metadata.deletionTimestamp && added.length > 0) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
    });
  }
  if (causes.length > 0) throw errors.invalid(type, String(next.metadata.name), causes);
}
