/**
 * Server-side printing for kubectl: when the client accepts `as=Table;g=meta.k8s.io`, gets and
 * lists answer with a meta.k8s.io/v1 Table of a few columns per kind (as upstream's printers do).
 */
import { asMap, asMaps, text } from './json.js';
import type { KubeObject } from './store.js';

type Column = [name: string, cell: (o: KubeObject) => string | number | boolean];

export function wantsTable(accept: string): boolean {
  return accept.split(',').some((part) => part.includes('as=Table') && part.includes('g=meta.k8s.io'));
}

/** Like k8s.io/apimachinery duration.HumanDuration, to two units at most. */
function humanAge(created: unknown, now: number): string {
  if (typeof created !== 'string') return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60 ? `${seconds % 60}s` : ''}`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
  const days = Math.floor(hours / 24);
  return days < 8 ? `${days}d${hours % 24 ? `${hours % 24}h` : ''}` : `${days}d`;
}

const spec = (o: KubeObject) => asMap(o.spec);
const status = (o: KubeObject) => asMap(o.status);

function nodeStatus(o: KubeObject): string {
  const ready = asMaps(status(o).conditions).find((c) => c.type === 'Ready');
  const value = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
  return spec(o).unschedulable ? `${value},SchedulingDisabled` : value;
}

function involved(o: KubeObject): string {
  const ref = asMap(o.involvedObject);
  return `${text(ref.kind).toLowerCase()}/${text(ref.name)}`;
}

function claim(o: KubeObject): string {
  const ref = asMap(spec(o).claimRef);
  return ref.name ? `${text(ref.namespace)}/${text(ref.name)}` : '';
}

const columns: Record<string, Column[]> = {
  Namespace: [['Status', (o) => text(status(o).phase)]],
  Node: [
    ['Status', nodeStatus],
    ['Volumes Attached', (o) => asMaps(status(o).volumesAttached).length],
  ],
  Pod: [
    ['Status', (o) => (o.metadata.deletionTimestamp ? 'Terminating' : text(status(o).phase))],
    ['Node', (o) => text(spec(o).nodeName) || '<none>'],
  ],
  PersistentVolumeClaim: [
    ['Status', (o) => text(status(o).phase)],
    ['Volume', (o) => text(spec(o).volumeName)],
  ],
  PersistentVolume: [
    ['Status', (o) => text(status(o).phase)],
    ['Claim', claim],
  ],
  VolumeAttachment: [
    ['Attacher', (o) => text(spec(o).attacher)],
    ['PV', (o) => text(asMap(spec(o).source).persistentVolumeName)],
    ['Node', (o) => text(spec(o).nodeName)],
    ['Attached', (o) => status(o).attached === true],
  ],
  Event: [
    ['Type', (o) => text(o.type)],
    ['Reason', (o) => text(o.reason)],
    ['Object', involved],
    ['Message', (o) => text(o.message)],
  ],
};

/** The Table for a get (one object) or list answer; other bodies pass through. */
export function asTable(body: unknown): { body: unknown } {
  const answer = asMap(body);
  const isList = Array.isArray(answer.items);
  const metadata = asMap(answer.metadata);
  if (!isList && !metadata.name) return { body };
  const kind = text(answer.kind).replace(isList ? /List$/ : /$^/, '');
  const objects = (isList ? answer.items : [answer]) as KubeObject[];
  const extra = columns[kind] ?? [];
  const now = Date.now();
  const definitions = ['Name', ...extra.map(([name]) => name), 'Age'].map((name) => ({
    name,
    type: 'string',
    format: name === 'Name' ? 'name' : '',
    description: name === 'Name' ? 'Name must be unique within a namespace.' : '',
    priority: 0,
  }));
  const rows = objects.map((o) => ({
    cells: [o.metadata.name, ...extra.map(([, cell]) => cell(o)), humanAge(o.metadata.creationTimestamp, now)],
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
  }));
  const tableMeta = isList ? metadata : { resourceVersion: metadata.resourceVersion };
  return { body: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: tableMeta, columnDefinitions: definitions, rows } };
}
