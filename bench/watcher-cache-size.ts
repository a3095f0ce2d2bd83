/**
 * `npm run bench -- --cache-size [--nodes 5000] [--pvs-per-node 25]`: the memory attacher mode's
 * watcher caches hold (watch/cache.ts), measured: a Node, CSINode and PV as EKS serves them (a
 * Node's labels, annotations, conditions, images and attached volumes; the EBS CSI driver's
 * CSINode entry; a CSI PV with its claim and node affinity), mapped as the adapter maps them
 * (json-mapping.ts), held in one cache at the given size; the heap before and after, collected.
 */
import { csiNodeFromJson, nodeFromJson, pvFromJson } from '../lambda/adapters/kubernetes/json-mapping.js';
import { WatchCache } from '../lambda/reconcile/watch/cache.js';

const volumeId = (i: number) => `vol-${i.toString(16).padStart(17, '0')}`;
const instanceId = (i: number) => `i-${i.toString(16).padStart(17, '0')}`;

function nodeJson(i: number, volumes: number): unknown {
  const name = `ip-10-${(i >> 8) & 255}-${i & 255}-1.eu-west-1.compute.internal`;
  const inUse = Array.from({ length: volumes }, (_, v) => `kubernetes.io/csi/ebs.csi.aws.com^${volumeId(i * 100 + v)}`);
  return {
    kind: 'Node',
    metadata: {
      name,
      uid: `0a1b2c3d-${i}`,
      resourceVersion: String(1_000_000 + i),
      labels: Object.fromEntries(Array.from({ length: 20 }, (_, l) => [`label.example.com/key-${l}`, `value-${l}`])),
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': '10.0.0.1',
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"${instanceId(i)}"}`,
      },
    },
    spec: { providerID: `aws:///eu-west-1a/${instanceId(i)}`, taints: [] },
    status: {
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        type,
        status: type === 'Ready' ? 'True' : 'False',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: '2026-11-28T10:00:00Z',
      })),
      images: Array.from({ length: 30 }, (_, m) => ({
        names: [`registry.example.com/image-${m}@sha256:${'0'.repeat(64)}`],
        sizeBytes: 1e8,
      })),
      volumesInUse: inUse,
      volumesAttached: inUse.map((n, v) => ({ name: n, devicePath: `/dev/xvda${String.fromCharCode(97 + (v % 26))}` })),
    },
  };
}

const csiNodeJson = (i: number): unknown => ({
  kind: 'CSINode',
  metadata: { name: `ip-10-${(i >> 8) & 255}-${i & 255}-1.eu-west-1.compute.internal`, uid: `c-${i}`, resourceVersion: String(i) },
  spec: {
    drivers: [
      { name: 'ebs.csi.aws.com', nodeID: instanceId(i), topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } },
    ],
  },
});

const pvJson = (i: number): unknown => ({
  kind: 'PersistentVolume',
  metadata: {
    name: `pvc-0a1b2c3d-4e5f-6789-abcd-${i.toString().padStart(12, '0')}`,
    uid: `p-${i}`,
    resourceVersion: String(i),
    finalizers: ['kubernetes.io/pv-protection', 'external-attacher/ebs-csi-aws-com'],
    annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com', 'volume.kubernetes.io/provisioner-deletion-secret-name': '' },
  },
  spec: {
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '100Gi' },
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'shop', name: `data-db-${i}`, uid: `c-${i}`, resourceVersion: '1' },
    csi: {
      driver: 'ebs.csi.aws.com',
      volumeHandle: volumeId(i),
      fsType: 'ext4',
      volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': 'x' },
    },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: ['eu-west-1a'] }] }],
      },
    },
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'gp3',
    volumeMode: 'Filesystem',
  },
  status: { phase: 'Bound' },
});

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

export function measureCacheSize(o: { nodes: number; pvsPerNode: number }) {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('run with NODE_OPTIONS=--expose-gc');
  const cache = new WatchCache(['nodes', 'csinodes', 'persistentvolumes']);
  for (const kind of cache.kinds) cache.relist(kind);
  const before = heapMb();
  for (let i = 0; i < o.nodes; i++) cache.apply('nodes', 'added', nodeFromJson(nodeJson(i, o.pvsPerNode)));
  const nodes = heapMb();
  for (let i = 0; i < o.nodes; i++) cache.apply('csinodes', 'added', csiNodeFromJson(csiNodeJson(i)));
  const csiNodes = heapMb();
  for (let i = 0; i < o.nodes * o.pvsPerNode; i++) cache.apply('persistentvolumes', 'added', pvFromJson(pvJson(i)));
  const pvs = heapMb();
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    nodes: o.nodes,
    pvs: o.nodes * o.pvsPerNode,
    objects: cache.size(),
    heapMb: { nodes: round(nodes - before), csiNodes: round(csiNodes - nodes), pvs: round(pvs - csiNodes), total: round(pvs - before) },
    bytesEach: {
      node: Math.round(((nodes - before) * 1024 * 1024) / o.nodes),
      csiNode: Math.round(((csiNodes - nodes) * 1024 * 1024) / o.nodes),
      pv: Math.round(((pvs - csiNodes) * 1024 * 1024) / (o.nodes * o.pvsPerNode)),
    },
  };
}
