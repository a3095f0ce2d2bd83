/**
 * Seeding and the parts tests play for other components: the kubelet, an administrator's
 * out-of-service taint, the PV controller's binding. Each is a real write seen by clients.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-assignment --
   tests read stored objects and response bodies as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outOfServiceTaint, startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { clientsFor, node, pod } from './support.js';

let sandbox: KubeSandbox;
let core: ReturnType<typeof clientsFor>['core'];

beforeAll(async () => {
  sandbox = await startKubeSandbox();
  ({ core } = clientsFor(sandbox));
});
afterAll(() => sandbox.stop());

describe('seed', () => {
  it('stores objects with their status, defaulting the namespace and creating it', async () => {
    sandbox.seed([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'solo' },
        spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'busybox' }] },
        status: { phase: 'Running' },
      },
    ]);
    sandbox.seed([pod('fresh-ns', 'db', 'n1')]);
    expect(sandbox.get('Pod', undefined, 'solo').status.phase).toBe('Running');
    expect((await core.readNamespace({ name: 'fresh-ns' })).metadata?.name).toBe('fresh-ns');
  });

  it('replaces an existing object, keeping its uid', () => {
    sandbox.seed([node('n-again')]);
    const uid = sandbox.get('Node', undefined, 'n-again').metadata.uid;
    sandbox.seed([node('n-again', { volumesInUse: ['v'] })]);
    expect(sandbox.get('no', undefined, 'n-again')).toMatchObject({ metadata: { uid }, status: { volumesInUse: ['v'] } });
  });

  it('hands tests copies: changing what get or list returned changes nothing stored', () => {
    sandbox.seed([node('n-copy')]);
    sandbox.get('Node', undefined, 'n-copy').status.volumesInUse = ['mutated'];
    sandbox.list('Node').forEach((n: { metadata: { labels?: object } }) => (n.metadata.labels = { mutated: 'yes' }));
    expect(sandbox.get('Node', undefined, 'n-copy')).toMatchObject({
      metadata: { name: 'n-copy' },
      status: { conditions: [{ type: 'Ready' }] },
    });
    expect(sandbox.get('Node', undefined, 'n-copy').status.volumesInUse).toBeUndefined();
    expect(sandbox.get('Node', undefined, 'n-copy').metadata.labels).toBeUndefined();
  });

  it('rejects unknown kinds and wrong apiVersions with a clear error', () => {
    expect(() => sandbox.seed([{ kind: 'Gizmo', metadata: { name: 'g' } }])).toThrow(/unknown kind "Gizmo"/);
    expect(() => sandbox.seed([{ apiVersion: 'v1', kind: 'VolumeAttachment', metadata: { name: 'v' } }])).toThrow(/storage.k8s.io\/v1/);
  });
});

describe('kubelet', () => {
  it('sets volumesInUse, bumping resourceVersion like the kubelet status update', async () => {
    sandbox.seed([node('n-vols')]);
    const before = sandbox.get('Node', undefined, 'n-vols').metadata.resourceVersion;
    sandbox.kubelet.setVolumesInUse('n-vols', ['kubernetes.io/csi/ebs.csi.aws.com^vol-1']);
    const read = await core.readNode({ name: 'n-vols' });
    expect(read.status?.volumesInUse).toEqual(['kubernetes.io/csi/ebs.csi.aws.com^vol-1']);
    expect(Number(read.metadata?.resourceVersion)).toBeGreaterThan(Number(before));
  });

  it('marks a node Ready and not Ready, moving lastTransitionTime only on a change', () => {
    sandbox.seed([node('n-ready')]);
    sandbox.kubelet.setReady('n-ready', false);
    const notReady = sandbox.get('Node', undefined, 'n-ready').status.conditions.find((c: { type: string }) => c.type === 'Ready');
    sandbox.kubelet.setReady('n-ready', false);
    const still = sandbox.get('Node', undefined, 'n-ready').status.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect([notReady.status, still.lastTransitionTime]).toEqual(['False', notReady.lastTransitionTime]);
    sandbox.kubelet.setReady('n-ready', true);
    expect(sandbox.get('Node', undefined, 'n-ready').status.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    ]);
  });

  it('adds and removes the out-of-service taint, keeping other taints', () => {
    sandbox.seed([{ ...node('n-oos'), spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }]);
    sandbox.kubelet.setOutOfService('n-oos', true);
    expect(sandbox.get('Node', undefined, 'n-oos').spec.taints.map((t: { key: string }) => t.key)).toEqual([
      'dedicated',
      outOfServiceTaint,
    ]);
    sandbox.kubelet.setOutOfService('n-oos', false);
    expect(sandbox.get('Node', undefined, 'n-oos').spec.taints.map((t: { key: string }) => t.key)).toEqual(['dedicated']);
  });

  it('deletes a pod gracefully (deletionTimestamp first, removal on the next call) or at once', () => {
    sandbox.seed([pod('default', 'slow', 'n1'), pod('default', 'fast', 'n1')]);
    sandbox.kubelet.deletePod('default', 'slow', { graceful: true });
    expect(sandbox.get('Pod', 'default', 'slow').metadata.deletionTimestamp).toEqual(expect.any(String));
    sandbox.kubelet.deletePod('default', 'slow');
    sandbox.kubelet.deletePod('default', 'fast');
    expect([sandbox.get('Pod', 'default', 'slow'), sandbox.get('Pod', 'default', 'fast')]).toEqual([undefined, undefined]);
  });

  it('sets a pod phase', () => {
    sandbox.seed([pod('default', 'done', 'n1')]);
    sandbox.kubelet.setPodPhase('default', 'done', 'Succeeded');
    expect(sandbox.get('Pod', 'default', 'done').status.phase).toBe('Succeeded');
  });
});

describe('on a test clock', () => {
  it('stamps node conditions, taints and creation with that clock, so time-based behaviour (eviction) follows the test', async () => {
    const at = Date.UTC(2031, 0, 2, 3, 4, 5);
    const clocked = await startKubeSandbox({ now: () => new Date(at) });
    try {
      clocked.seed([node('n-clock')]);
      clocked.kubelet.setReady('n-clock', false);
      clocked.kubelet.setOutOfService('n-clock', true);
      const stored = clocked.get('Node', undefined, 'n-clock');
      expect([
        stored.metadata.creationTimestamp,
        stored.status.conditions.find((c: { type: string }) => c.type === 'Ready').lastTransitionTime,
        stored.spec.taints.find((t: { key: string }) => t.key === outOfServiceTaint).timeAdded,
      ]).toEqual(Array(3).fill('2031-01-02T03:04:05Z'));
    } finally {
      await clocked.stop();
    }
  });
});

describe('bind', () => {
  it('binds a claim and a volume both ways, as the PV controller does', () => {
    sandbox.seed([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { namespace: 'default', name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv-data' },
        spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } },
      },
    ]);
    sandbox.bind('default', 'data', 'pv-data');
    const claim = sandbox.get('PersistentVolumeClaim', 'default', 'data');
    expect(claim).toMatchObject({ spec: { volumeName: 'pv-data' }, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'] } });
    expect(sandbox.get('pv', undefined, 'pv-data')).toMatchObject({
      spec: { claimRef: { namespace: 'default', name: 'data', uid: claim.metadata.uid } },
      status: { phase: 'Bound' },
    });
  });

  it('lists by kind and namespace in key order', () => {
    sandbox.seed([pod('ns-b', 'x', 'n1'), pod('ns-a', 'y', 'n1'), pod('ns-a', 'x', 'n1')]);
    expect(sandbox.list('Pod', 'ns-a').map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['x', 'y']);
    expect(
      sandbox
        .list('Pod')
        .filter((p: { metadata: { namespace: string } }) => p.metadata.namespace.startsWith('ns-'))
        .map((p: { metadata: { namespace: string } }) => p.metadata.namespace),
    ).toEqual(['ns-a', 'ns-a', 'ns-b']);
  });
});
