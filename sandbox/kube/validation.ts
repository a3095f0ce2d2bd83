/**
 * The validation rules a write must pass (422 Invalid otherwise): object names, and for the
 * types the controller writes, the fields upstream requires. Only API writes are validated;
 * seeded fixtures are trusted so that tests can stay small.
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

function volumeAttachmentCauses(object: KubeObject): StatusCause[] {
  const spec = asMap(object.spec);
  const causes: StatusCause[] = [];
  if (!spec.attacher) causes.push(required('spec.attacher'));
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

const kindRules: Record<string, (object: KubeObject) => StatusCause[]> = {
  VolumeAttachment: volumeAttachmentCauses,
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
