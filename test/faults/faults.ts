/**
 * The faults a step may inject, at every kind of step of a pass: EC2 throttling, 5xx and
 * lost answers (carried out, but the connection dropped before the response), attaches stuck in `attaching` and detaches stuck `busy`, DescribeVolumes lagging
 * behind mutations; Kubernetes 409/500/503 on lists, single-object reads and VolumeAttachment
 * writes, and broken pagination; DynamoDB failures (conditional conflicts come from concurrent passes).
 * Attacher mode draws the same kinds against what it reads and writes instead: VolumeAttachment,
 * PV, CSINode and node reads, the VolumeAttachment status and finalizer patches, the PV finalizer.
 */
import type { Random } from '../../sandbox/generate/random.js';
import { pickNodeStatusFault } from './node-status-faults.js';
import type { Fault } from './fault.js';
import type { Mode, World } from './rig.js';

export type { Fault } from './fault.js';

const EC2_ACTIONS = ['AttachVolume', 'DetachVolume', 'DescribeVolumes', 'DescribeInstances'];
const EC2_CODES = ['RequestLimitExceeded', 'InternalError', 'ServiceUnavailable'];
const KUBE_PATHS = [
  '/api/v1/pods',
  '/api/v1/nodes',
  '/api/v1/nodes/[^/]+/status',
  '/api/v1/persistentvolumeclaims',
  '/api/v1/namespaces/default/persistentvolumeclaims',
  '/api/v1/persistentvolumes',
  '/apis/storage.k8s.io/v1/volumeattachments',
  '/api/v1/namespaces/default/events',
];
/** Single-object reads (a targeted pass's pod, claim and PV; the node re-check before a detach) and VolumeAttachment writes. */
const KUBE_OBJECT_REQUESTS: [string, string][] = [
  ['GET', '/api/v1/namespaces/default/pods/[^/]+'],
  ['GET', '/api/v1/namespaces/default/persistentvolumeclaims/[^/]+'],
  ['GET', '/api/v1/persistentvolumes/[^/]+'],
  ['GET', '/api/v1/nodes/[^/]+'],
  ['PATCH', '/apis/storage.k8s.io/v1/volumeattachments/[^/]+/status'],
  ['PATCH', '/apis/storage.k8s.io/v1/volumeattachments/[^/]+'],
  ['DELETE', '/apis/storage.k8s.io/v1/volumeattachments/[^/]+'],
];
const LISTED = ['pods', 'nodes', 'persistentvolumes', 'persistentvolumeclaims', 'volumeattachments'];

/** The Kubernetes requests a fault may hit: whole lists, single objects and writes, paginated kinds. */
interface KubeTargets {
  paths: string[];
  objectRequests: [string, string][];
  listed: string[];
}

const CONTROLLER_TARGETS: KubeTargets = { paths: KUBE_PATHS, objectRequests: KUBE_OBJECT_REQUESTS, listed: LISTED };

const VA = '/apis/storage.k8s.io/v1/volumeattachments';
const ATTACHER_TARGETS: KubeTargets = {
  paths: [VA, '/api/v1/persistentvolumes', '/apis/storage.k8s.io/v1/csinodes', '/api/v1/nodes', '/api/v1/namespaces/default/events'],
  objectRequests: [
    ['GET', `${VA}/[^/]+`],
    ['GET', '/apis/storage.k8s.io/v1/csinodes/[^/]+'],
    ['GET', '/api/v1/nodes/[^/]+'],
    ['GET', '/api/v1/namespaces/default/pods/[^/]+'],
    ['PATCH', `${VA}/[^/]+/status`],
    ['PATCH', `${VA}/[^/]+`],
    ['PATCH', '/api/v1/persistentvolumes/[^/]+'],
    ['PATCH', '/api/v1/nodes/[^/]+'],
  ],
  listed: ['volumeattachments', 'persistentvolumes', 'csinodes', 'nodes'],
};
const DYNAMO_OPERATIONS = ['Scan', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];

export function pickFaults(random: Random, mode: Mode = 'controller'): Fault[] {
  const count = random.pick([0, 1, 1, 2, 3]);
  const targets = mode === 'attacher' ? ATTACHER_TARGETS : CONTROLLER_TARGETS;
  return Array.from({ length: count }, () => pickFault(random, targets));
}

function pickFault(random: Random, kube: KubeTargets): Fault {
  switch (random.int(12)) {
    case 0:
      return { kind: 'ec2-error', action: random.pick(EC2_ACTIONS), code: random.pick(EC2_CODES), count: random.between(1, 2) };
    case 1:
      return { kind: 'ec2-lost-answer', action: random.pick(EC2_ACTIONS), count: random.between(1, 3) };
    case 2:
      return random.chance(0.5) ? { kind: 'stuck-attach' } : { kind: 'busy-detach' };
    case 3:
      return {
        kind: 'kube-error',
        method: random.pick(['GET', 'PATCH', 'POST', 'PUT', 'DELETE']),
        path: random.pick(kube.paths),
        code: random.pick([409, 500]),
        count: random.between(1, 2),
      };
    case 7:
    case 8: {
      const [method, path] = random.pick(kube.objectRequests);
      return { kind: 'kube-error', method, path, code: random.pick([409, 500, 503]), count: random.between(1, 2) };
    }
    case 9:
      return { kind: 'ec2-read-lag', ms: random.pick([2_000, 30_000, 300_000]) };
    case 10:
    case 11:
      return pickNodeStatusFault(random);
    case 4:
      return { kind: 'kube-pagination', resource: random.pick(kube.listed), mode: random.pick(['error', 'expired'] as const) };
    default:
      return { kind: 'dynamo-error', operation: random.pick(DYNAMO_OPERATIONS), count: random.between(1, 2) };
  }
}

export function inject(world: World, fault: Fault): void {
  switch (fault.kind) {
    case 'ec2-error':
      return world.ec2.failNext({ action: fault.action, code: fault.code, count: fault.count });
    // What a timeout leaves the caller with, without a real-time race: the call was carried out, its answer never came.
    case 'ec2-lost-answer':
      return world.ec2.loseAnswers(fault.action, fault.count);
    case 'stuck-attach':
      return world.ec2.stickAttach('*');
    case 'busy-detach':
      return world.ec2.stickDetach('*');
    case 'kube-error':
      return world.kube.faults.failNext({ method: fault.method, path: new RegExp(`^${fault.path}(\\?|$)`) }, fault.count, fault.code);
    case 'kube-pagination':
      return world.kube.faults.breakPagination({ path: new RegExp(`/${fault.resource}\\?`) }, { page: 2, mode: fault.mode });
    case 'dynamo-error':
      return world.dynamo.failNext(fault.operation, fault.count);
    case 'ec2-read-lag':
      return world.ec2.lagReads(fault.ms);
  }
}

/** Request faults end with the step; a stuck attachment stays stuck until `unstick` (EC2 or the OS gives up). */
export function clearFaults(world: World): void {
  world.ec2.clearFaults();
  world.kube.faults.clear();
  world.dynamo.clearFaults();
}

export function unstick(world: World): void {
  for (const volume of world.ec2.world.volumes.values()) for (const attachment of volume.attachments.values()) attachment.stuck = false;
}

export function describeFault(fault: Fault): string {
  const { kind, ...rest } = fault;
  const details = Object.entries(rest)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return details ? `${kind}(${details})` : kind;
}
