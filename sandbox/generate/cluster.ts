/**
 * Generates a realistic cluster from a seed: nodes spread over zones, StatefulSets whose
 * members sit on different nodes (each with its own RWO gp3 volume in its node's zone),
 * single-replica Deployments with a claim, stateless Deployments, one io2 Multi-Attach RWX
 * block volume shared by several readers, and optionally pods still pending.
 */
import {
  DEFAULT_ZONES,
  type ClusterOptions,
  type GenAttachment,
  type GeneratedCluster,
  type GenNode,
  type GenOwner,
  type GenPod,
  type GenVolume,
} from './model.js';
import {
  deviceName,
  INSTANCE_TYPES,
  instanceId,
  NAMESPACES,
  nodeName,
  podSuffix,
  SINGLE_REPLICA_APPS,
  STATEFUL_APPS,
  STATELESS_APPS,
  volumeId,
} from './names.js';
import { Random } from './random.js';

const STATEFUL_SET_SIZE = 3;

/** Everything the generator decides, carried while building. */
class Builder {
  readonly cluster: GeneratedCluster;
  /** Next free device index per node. */
  private readonly devices = new Map<string, number>();
  private owners = new Map<string, GenOwner>();

  constructor(
    readonly random: Random,
    zones: string[],
  ) {
    this.cluster = { seed: random.seed, zones, nodes: [], volumes: [], pods: [], attached: [] };
  }

  owner(kind: GenOwner['kind'], name: string): GenOwner {
    const key = `${kind}/${name}`;
    let found = this.owners.get(key);
    if (!found) this.owners.set(key, (found = { kind, name, uid: this.random.uid() }));
    return found;
  }

  volume(zone: string, namespace: string, claimName: string, shape: Partial<GenVolume> = {}): GenVolume {
    const volume: GenVolume = {
      volumeId: volumeId(this.random),
      zone,
      volumeType: 'gp3',
      sizeGiB: this.random.pick([20, 50, 100, 200]),
      multiAttach: false,
      pvName: `pvc-${this.random.uid()}`,
      pvUid: this.random.uid(),
      claim: { namespace, name: claimName, uid: this.random.uid() },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      ...shape,
    };
    this.cluster.volumes.push(volume);
    return volume;
  }

  attach(volume: GenVolume, node: GenNode): void {
    const index = this.devices.get(node.name) ?? 0;
    this.devices.set(node.name, index + 1);
    const attachment: GenAttachment = { volumeId: volume.volumeId, nodeName: node.name, device: deviceName(index) };
    this.cluster.attached.push(attachment);
  }
}

export function generateCluster(options: ClusterOptions): GeneratedCluster {
  const random = new Random(options.seed);
  const builder = new Builder(random, options.zones ?? DEFAULT_ZONES);
  addNodes(builder, options.nodes);
  addStatefulPods(builder, options.volumesPerNode ?? 4);
  addStatelessPods(builder, Math.max(0, (options.podsPerNode ?? 10) - (options.volumesPerNode ?? 4)));
  addMultiAttachReaders(builder, options.multiAttachReaders ?? 3);
  addPendingPods(builder, options.pendingPods ?? 0, true);
  addPendingPods(builder, options.unscheduledPods ?? 0, false);
  return builder.cluster;
}

function addNodes(builder: Builder, count: number): void {
  const { cluster, random } = builder;
  for (let i = 0; i < count; i++) {
    const zone = cluster.zones[i % cluster.zones.length] as string;
    cluster.nodes.push({ name: nodeName(i + 10), instanceId: instanceId(random), zone, instanceType: random.pick(INSTANCE_TYPES) });
  }
}

/** The k-th stateful pod: members of one StatefulSet land on consecutive nodes (so different zones). */
function statefulIdentity(builder: Builder, k: number) {
  const set = Math.floor(k / STATEFUL_SET_SIZE);
  const namespace = NAMESPACES[set % NAMESPACES.length] as string;
  if (set % 5 === 4) {
    // A Deployment of one replica per claim: each such pod is its own app.
    const app = `${SINGLE_REPLICA_APPS[k % SINGLE_REPLICA_APPS.length]}-${k}`;
    const replicaSet = `${app}-${builder.random.hex(10)}`;
    return {
      namespace,
      app,
      owner: builder.owner('ReplicaSet', replicaSet),
      name: `${replicaSet}-${podSuffix(builder.random)}`,
      claim: `${app}-data`,
    };
  }
  const app = `${STATEFUL_APPS[set % STATEFUL_APPS.length]}-${set}`;
  const ordinal = k % STATEFUL_SET_SIZE;
  return { namespace, app, owner: builder.owner('StatefulSet', app), name: `${app}-${ordinal}`, claim: `data-${app}-${ordinal}` };
}

function addStatefulPods(builder: Builder, perNode: number): void {
  const { cluster } = builder;
  let k = 0;
  for (let slot = 0; slot < perNode; slot++) {
    for (const node of cluster.nodes) {
      const id = statefulIdentity(builder, k++);
      const volume = builder.volume(node.zone, id.namespace, id.claim);
      builder.attach(volume, node);
      cluster.pods.push({
        namespace: id.namespace,
        name: id.name,
        uid: builder.random.uid(),
        app: id.app,
        owner: id.owner,
        nodeName: node.name,
        claims: [id.claim],
        phase: 'Running',
      });
    }
  }
}

function addStatelessPods(builder: Builder, perNode: number): void {
  const { cluster, random } = builder;
  const replicaSets = STATELESS_APPS.map((app) => ({ app, owner: builder.owner('ReplicaSet', `${app}-${random.hex(10)}`) }));
  for (const node of cluster.nodes) {
    for (let i = 0; i < perNode; i++) {
      const { app, owner } = random.pick(replicaSets);
      const namespace = NAMESPACES[STATELESS_APPS.indexOf(app) % NAMESPACES.length] as string;
      cluster.pods.push({
        namespace,
        name: `${owner.name}-${podSuffix(random)}`,
        uid: random.uid(),
        app,
        owner,
        nodeName: node.name,
        claims: [],
        phase: 'Running',
      });
    }
  }
}

/** One io2 volume with Multi-Attach, as a raw block device (RWX), read by pods on nodes of one zone. */
function addMultiAttachReaders(builder: Builder, readers: number): void {
  const { cluster, random } = builder;
  const zone = cluster.zones[0] as string;
  const nodes = cluster.nodes.filter((node) => node.zone === zone).slice(0, readers);
  if (nodes.length === 0) return;
  const volume = builder.volume(zone, 'data', 'shared-ledger', {
    volumeType: 'io2',
    iops: 3000,
    sizeGiB: 100,
    multiAttach: true,
    accessModes: ['ReadWriteMany'],
    volumeMode: 'Block',
  });
  const owner = builder.owner('ReplicaSet', `ledger-readers-${random.hex(10)}`);
  for (const node of nodes) {
    builder.attach(volume, node);
    cluster.pods.push({
      namespace: 'data',
      name: `${owner.name}-${podSuffix(random)}`,
      uid: random.uid(),
      app: 'ledger-readers',
      owner,
      nodeName: node.name,
      claims: ['shared-ledger'],
      phase: 'Running',
    });
  }
}

/** StatefulSet members created by a scale-up: scheduled (volumes not attached yet) or not placed yet. */
function addPendingPods(builder: Builder, count: number, scheduled: boolean): void {
  const { cluster, random } = builder;
  const app = scheduled ? 'orders-db' : 'reports-db';
  const owner = builder.owner('StatefulSet', app);
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const node = random.pick(cluster.nodes);
    const claim = `data-${app}-${ordinal}`;
    builder.volume(node.zone, 'payments', claim);
    const pod: GenPod = {
      namespace: 'payments',
      name: `${app}-${ordinal}`,
      uid: random.uid(),
      app,
      owner,
      claims: [claim],
      phase: 'Pending',
    };
    cluster.pods.push(scheduled ? { ...pod, nodeName: node.name } : pod);
  }
}
