/** A full pass over fakes at T0, for the executor's specifications. */
import { runFullPass } from '../../lambda/reconcile/controller/full-pass.js';
import type { ClusterSnapshot } from '../../lambda/core/kube.js';
import type { VolumeRecord } from '../../lambda/core/types.js';
import { instanceOf, node, pod, pv, pvc, snapshot, T0, uname, vol } from '../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../support/fake-ports.js';

export const V = vol(1);

/** A pass over fakes at T0; verification is not due (the store says it just ran). */
export function harness(cluster: ClusterSnapshot, records: VolumeRecord[] = []) {
  const store = new FakeStore();
  for (const r of records) store.items.set(r.volumeId, structuredClone(r));
  store.state = { version: 1, lastVerifiedAt: T0, seededAt: T0 };
  const kube = new FakeCluster(cluster);
  const ec2 = new FakeBlockStorage();
  let ids = 0;
  const deps = fakeDeps({ cluster: kube, store, blockStorage: ec2, newId: () => `id-${++ids}` });
  return { deps, store, kube, ec2, pass: (deadline = T0 + 60_000) => runFullPass(deps, { deadline }) };
}

export const podOnA = () =>
  snapshot({
    nodes: [node('node-a'), node('node-b')],
    pods: [pod('db-0', { node: 'node-a', claims: ['data'] })],
    pvcs: [pvc('data')],
    pvs: [pv('pv-data', { volumeId: V })],
  });
export const noPods = (inUse: string[] = []) =>
  snapshot({
    nodes: [node('node-a', { inUse, attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
    pvs: [pv('pv-data', { volumeId: V })],
  });

/** What EC2 says of V when it has the volume attached on the node's instance. */
export const ec2ShowsAttached = (nodeName: string, device = '/dev/xvdaa') => ({
  volumeId: V,
  exists: true,
  attachments: [{ instanceId: instanceOf(nodeName), state: 'attached' as const, device }],
});
