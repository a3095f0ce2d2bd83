/**
 * One small world per reason code: the cluster objects, the actual state and what EC2 says, in
 * which the plan defers (or the builder skips, or the guard holds back) volume vol(1) with that
 * code. The plan tests prove each code is produced; the explain tests prove each is explained.
 *
 * The base world: managed, Ready nodes node-a and node-b; pod default/web on node-a claims `data`,
 * bound to PV pv-data on vol(1).
 */
import type { PlanConfig } from '../../lambda/core/config.js';
import type { ClusterSnapshot } from '../../lambda/core/kube.js';
import type { SkipCode, WaitCode } from '../../lambda/core/reasons.js';
import type { InstanceState, Observations, VolumeObservation, VolumeRecord } from '../../lambda/core/types.js';
import { attachment, config, instanceOf, MIN, node, op, pod, pv, pvc, record, snapshot, T0, vol } from './builders.js';

export interface ReasonWorld {
  snapshot: ClusterSnapshot;
  records: VolumeRecord[];
  observations: Observations;
  /** False: the cluster read was incomplete. */
  complete: boolean;
  config: PlanConfig;
  now: number;
  /** Attacher mode: kcm decides detaches; these (volume, node) pair keys are released. */
  released?: string[];
}

export const V = vol(1);

interface Parts {
  nodes?: ClusterSnapshot['nodes'];
  pods?: ClusterSnapshot['pods'];
  pvcs?: ClusterSnapshot['pvcs'];
  pvs?: ClusterSnapshot['pvs'];
  records?: VolumeRecord[];
  volumes?: VolumeObservation[];
  instances?: [string, InstanceState | 'missing'][];
  complete?: boolean;
  config?: Partial<PlanConfig>;
}

export function world(parts: Parts = {}): ReasonWorld {
  return {
    snapshot: snapshot({
      nodes: parts.nodes ?? [node('node-a'), node('node-b')],
      pods: parts.pods ?? [pod('web', { claims: ['data'] })],
      pvcs: parts.pvcs ?? [pvc('data')],
      pvs: parts.pvs ?? [pv('pv-data', { volumeId: V })],
    }),
    records: parts.records ?? [],
    observations: {
      ...(parts.volumes === undefined ? {} : { volumes: new Map(parts.volumes.map((v) => [v.volumeId, v])) }),
      ...(parts.instances === undefined ? {} : { instances: new Map(parts.instances) }),
    },
    complete: parts.complete ?? true,
    config: config(parts.config),
    now: T0,
  };
}

/** EC2 shows vol(1) attaching to `nodeName`'s instance since `since`. */
const attachingOn = (nodeName: string, since: number): VolumeObservation => ({
  volumeId: V,
  exists: true,
  attachments: [{ instanceId: instanceOf(nodeName), state: 'attaching', device: '/dev/xvdaa', attachTime: since }],
});

/** No pod needs vol(1); it is attached to node-b. */
const unneededOnB = (o: { mounted?: boolean; nodeB?: ClusterSnapshot['nodes'][number]; requestedAt?: number } = {}): Parts => ({
  pods: [],
  nodes: [node('node-a'), o.nodeB ?? node('node-b', o.mounted ? { inUse: [V] } : {})],
  records: [
    record(V, [attachment('node-b', { mounted: o.mounted ?? false, ...(o.requestedAt ? { detachRequestedAt: o.requestedAt } : {}) })]),
  ],
});

export interface WaitScenario {
  code: WaitCode;
  nodeName: string;
  operation: 'attach' | 'detach';
  world: ReasonWorld;
}

export const WAIT_SCENARIOS: WaitScenario[] = [
  {
    code: 'previous-instance',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({ records: [record(V, [attachment('node-a', { instanceId: 'i-0000000000000dead' })])] }),
  },
  {
    code: 'instance-not-running',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({ instances: [[instanceOf('node-a'), 'terminated']] }),
  },
  {
    code: 'lock-held',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({ records: [record(V, [], { operations: { volume: op('attach', 'node-a') } })] }),
  },
  {
    code: 'lease-expired',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({ records: [record(V, [], { operations: { volume: op('attach', 'node-a', { leaseExpiresAt: T0 - 1 }) } })] }),
  },
  {
    code: 'attachment-limit',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({
      records: [
        record(V, [], {
          backoff: {
            'attach:node-a': {
              failures: 1,
              notBefore: T0 - 30_000,
              lastError: 'AttachmentLimitExceeded',
              untilDetachFrom: { instanceId: instanceOf('node-a'), attached: 0 },
            },
          },
        }),
      ],
    }),
  },
  {
    code: 'backing-off',
    nodeName: 'node-a',
    operation: 'attach',
    world: world({
      records: [
        record(V, [], {
          backoff: { 'attach:node-a': { failures: 3, notBefore: T0 + 30_000, lastError: 'AttachVolume: InvalidParameterValue' } },
        }),
      ],
    }),
  },
  {
    // An exclusive volume attached to two nodes nobody needs: one detach per pass.
    code: 'planned-this-pass',
    nodeName: 'node-b',
    operation: 'detach',
    world: world({
      pods: [],
      nodes: [node('node-a'), node('node-b'), node('node-c')],
      records: [record(V, [attachment('node-a'), attachment('node-b')])],
    }),
  },
  {
    code: 'attach-unverified',
    nodeName: 'node-a',
    operation: 'detach',
    world: world({ records: [record(V, [attachment('node-a', { state: 'attaching', reported: false })])] }),
  },
  {
    code: 'attach-in-progress',
    nodeName: 'node-a',
    operation: 'detach',
    world: world({
      records: [record(V, [attachment('node-a', { state: 'attaching', reported: false, since: T0 - 10_000 })])],
      volumes: [attachingOn('node-a', T0 - 10_000)],
    }),
  },
  {
    code: 'stuck-but-mounted',
    nodeName: 'node-a',
    operation: 'detach',
    world: world({
      nodes: [node('node-a', { inUse: [V] }), node('node-b')],
      records: [record(V, [attachment('node-a', { state: 'attaching', reported: true, since: T0 - 10 * MIN })])],
      volumes: [attachingOn('node-a', T0 - 10 * MIN)],
    }),
  },
  { code: 'incomplete-input', nodeName: 'node-b', operation: 'detach', world: world({ ...unneededOnB(), complete: false }) },
  {
    code: 'node-unmanaged',
    nodeName: 'node-b',
    operation: 'detach',
    world: world(unneededOnB({ nodeB: node('node-b', { managed: false }) })),
  },
  { code: 'mounted-on-ready-node', nodeName: 'node-b', operation: 'detach', world: world(unneededOnB({ mounted: true })) },
  {
    code: 'force-detach-disabled',
    nodeName: 'node-b',
    operation: 'detach',
    world: world({ ...unneededOnB({ nodeB: node('node-b', { ready: false, inUse: [V] }) }), config: { maxWaitForUnmountMs: null } }),
  },
  {
    code: 'not-released',
    nodeName: 'node-b',
    operation: 'detach',
    world: { ...world(unneededOnB()), released: [] },
  },
  {
    code: 'waiting-for-unmount-timeout',
    nodeName: 'node-b',
    operation: 'detach',
    world: world(unneededOnB({ nodeB: node('node-b', { ready: false, inUse: [V] }), requestedAt: T0 - MIN })),
  },
];

export interface SkipScenario {
  code: SkipCode;
  world: ReasonWorld;
}

const podOn = (nodeName: string) => [pod('web', { claims: ['data'], node: nodeName })];

export const SKIP_SCENARIOS: SkipScenario[] = [
  { code: 'claim-not-found', world: world({ pvcs: [] }) },
  {
    code: 'claim-not-owned',
    world: world({ pods: [pod('web', { ephemeral: ['cache'] })], pvcs: [pvc('web-cache', { ownerUid: 'uid-other' })] }),
  },
  { code: 'claim-unbound', world: world({ pvcs: [pvc('data', { pv: null })] }) },
  { code: 'pv-not-found', world: world({ pvs: [] }) },
  { code: 'pv-not-bound-back', world: world({ pvs: [pv('pv-data', { volumeId: V, claim: null })] }) },
  { code: 'pv-claim-mismatch', world: world({ pvs: [pv('pv-data', { volumeId: V, claimUid: 'uid-old' })] }) },
  { code: 'invalid-volume-id', world: world({ pvs: [pv('pv-data', { volumeId: 'vol-bogus' })] }) },
  { code: 'capability-refused', world: world({ pvs: [pv('pv-data', { volumeId: V, modes: ['ReadOnlyMany'] })] }) },
  { code: 'node-not-found', world: world({ pods: podOn('node-x') }) },
  { code: 'node-unmanaged', world: world({ nodes: [node('node-a', { managed: false })] }) },
  { code: 'node-no-instance', world: world({ nodes: [node('node-a', { providerID: null })] }) },
];

/** Twelve unneeded, unmounted attachments on node-b: the guard (10, 0.5) lets six go per pass. */
export const HELD_BACK_WORLD: ReasonWorld = world({
  pods: [],
  records: Array.from({ length: 12 }, (_, i) => record(vol(i + 1), [attachment('node-b')])),
});

/** Exclusive vol(1) attached to node-b while pod web on node-a needs it. */
export const MULTI_ATTACH_WORLD: ReasonWorld = world({ records: [record(V, [attachment('node-b')])] });
