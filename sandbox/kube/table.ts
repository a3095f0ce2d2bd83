/**
 * Server-side printing for kubectl: when the client accepts `as=Table;g=meta.k8s.io`, gets and
 * lists answer with a meta.k8s.io/v1 Table. Nodes and pods have upstream's columns
 * (pkg/printers/internalversion; priority 1 = `-o wide`); other kinds a few columns of ours.
 */
import { asMap, asMaps, text } from './json.js';
import type { KubeObject } from './store.js';

type Cell = (o: KubeObject, now: number) => string | number | boolean;
/** Priority 0 columns are printed by default, 1 only with `-o wide`. */
type Column = [name: string, cell: Cell, priority?: 0 | 1];

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

/** Roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels, as upstream's node printer finds them. */
function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(o.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length) roles.add(key.slice(24));
    if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(type: string): Cell {
  return (o) => text(asMaps(status(o).addresses).find((address) => address.type === type)?.address) || '<none>';
}

const nodeInfo =
  (field: string): Cell =>
  (o) =>
    text(asMap(status(o).nodeInfo)[field]) || '<unknown>';

function podReady(o: KubeObject): string {
  const containers = asMaps(spec(o).containers).length;
  const ready = asMaps(status(o).containerStatuses).filter((c) => c.ready === true).length;
  return `${ready}/${containers}`;
}

function podRestarts(o: KubeObject): string {
  return String(asMaps(status(o).containerStatuses).reduce((sum, c) => sum + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0));
}

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp) return 'Terminating';
  return text(status(o).reason) || text(status(o).phase);
}

const age: Column = ['Age', (o, now) => humanAge(o.metadata.creationTimestamp, now)];

/** Full column lists where upstream's order differs from Name, extra columns, Age. */
const fullColumns: Record<string, Column[]> = {
  Node: [
    ['Status', nodeStatus],
    ['Roles', nodeRoles],
    age,
    ['Version', nodeInfo('kubeletVersion')],
    ['Internal-IP', nodeAddress('InternalIP'), 1],
    ['External-IP', nodeAddress('ExternalIP'), 1],
    ['OS-Image', nodeInfo('osImage'), 1],
    ['Kernel-Version', nodeInfo('kernelVersion'), 1],
    ['Container-Runtime', nodeInfo('containerRuntimeVersion'), 1],
  ],
  Pod: [
    ['Ready', podReady],
    ['Status', podStatus],
    ['Restarts', podRestarts],
    age,
    ['IP', (o) => text(status(o).podIP) || '<none>', 1],
    ['Node', (o) => text(spec(o).nodeName) || '<none>', 1],
    ['Nominated Node', (o) => text(status(o).nominatedNodeName) || '<none>', 1],
    ['Readiness Gates', () => '<none>', 1],
  ],
};

const columns: Record<string, Column[]> = {
  Namespace: [['Status', (o) => text(status(o).phase)]],
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
  const shown: Column[] = [['Name', (o) => text(o.metadata.name)], ...(fullColumns[kind] ?? [...(columns[kind] ?? []), age])];
  const now = Date.now();
  const definitions = shown.map(([name, , priority = 0]) => ({
    name,
    type: 'string',
    format: name === 'Name' ? 'name' : '',
    description: name === 'Name' ? 'Name must be unique within a namespace.' : '',
    priority,
  }));
  const rows = objects.map((o) => ({
    cells: shown.map(([, cell]) => cell(o, now)),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
  }));
  const tableMeta = isList ? metadata : { resourceVersion: metadata.resourceVersion };
  return { body: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: tableMeta, columnDefinitions: definitions, rows } };
}
