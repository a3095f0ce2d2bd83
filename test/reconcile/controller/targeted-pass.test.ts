import { describe, expect, it } from 'vitest';
import type { InstanceId, VolumeRecord } from '../../../lambda/core/types.js';
import type { ClusterSnapshot } from '../../../lambda/core/kube.js';
import { runTargetedPass } from '../../../lambda/reconcile/controller/targeted-pass.js';
import type { VolumeStore } from '../../../lambda/ports/volume-store.js';
import type { PassOptions, Target } from '../../../lambda/reconcile/pass/types.js';
import { attachment, instanceOf, matching, node, pod, pv, pvc, record, snapshot, T0, uname } from '../../core/builders.js';
import { harness, podOnA, V } from '../executor-harness.js';

const DB_0: Target = { kind: 'pod', namespace: 'default', name: 'db-0' };

/** A targeted pass over fakes that writes down the instance ids of each DescribeInstances. */
function world(cluster: ClusterSnapshot = podOnA(), records: VolumeRecord[] = []) {
  const { deps, kube, store, ec2 } = harness(cluster, records);
  const instancesAsked: InstanceId[][] = [];
  const observe = ec2.observeInstances.bind(ec2);
  ec2.observeInstances = (ids) => (instancesAsked.push([...ids]), observe(ids));
  const pass = (target: Target = DB_0, options: PassOptions = {}) => runTargetedPass(deps, target, { deadline: T0 + 60_000 }, options);
  return { pass, kube, store, ec2, instancesAsked };
}

/** node-a still reports V, which the record has attached there; EC2 shows it attached nowhere. */
const detachedBehindOurBack = () =>
  world(
    snapshot({
      nodes: [node('node-a', { attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
      pvs: [pv('pv-data', { volumeId: V })],
    }),
    [record(V, [attachment('node-a')])],
  );

describe('a targeted pass', () => {
  it('asks EC2 about exactly the volumes and instances it read, says it verified, and reports the pass as targeted, not seeding', async () => {
    const { pass, ec2, instancesAsked } = world();

    const report = await pass();

    expect(ec2.describes).toEqual([[V]]);
    expect(instancesAsked).toEqual([[instanceOf('node-a')]]);
    expect(report).toMatchObject({ kind: 'targeted', target: DB_0, verified: true, seeded: false, dryRun: false, problems: [] });
  });

  it('asks EC2 about the instance an instance event names, even when no node or record it read names that instance', async () => {
    const { pass, instancesAsked } = world();
    const stranger = instanceOf('node-z');

    await pass({ kind: 'instance', instanceId: stranger });

    expect(instancesAsked).toEqual([[stranger]]);
  });

  it('says it did not verify when EC2 cannot be asked', async () => {
    const { pass, ec2 } = world();
    ec2.describeVolumes = () => Promise.reject(new Error('RequestLimitExceeded'));

    const report = await pass();

    expect(report.verified).toBe(false);
  });

  it.each([
    { given: { passId: 'evt-42' }, passId: 'evt-42' },
    { given: {}, passId: 'id-1' },
  ])('reports under the pass id it is given, else a new one ($passId)', async ({ given, passId }) => {
    const { pass } = world();

    const report = await pass(DB_0, given);

    expect(report.passId).toBe(passId);
  });

  it('reports the problems of what it read: a node naming no EC2 instance, a store item it cannot parse, each from its source', async () => {
    const { pass, store } = world(
      snapshot({
        nodes: [node('node-a', { providerID: null })],
        pods: [pod('db-0', { node: 'node-a', claims: ['data'] })],
        pvcs: [pvc('data')],
        pvs: [pv('pv-data', { volumeId: V })],
      }),
    );
    const getMany = store.getMany.bind(store);
    const port: VolumeStore = store;
    port.getMany = async (ids) => ({ ...(await getMany(ids)), corrupt: [{ key: `volume#${V}`, problem: 'attachments is not a map' }] });

    const report = await pass();

    expect(report.problems).toEqual([
      { source: 'kubernetes', message: matching(/node-a/) },
      { source: 'dynamodb', message: matching(new RegExp(`volume#${V}.*attachments is not a map`)) },
    ]);
  });

  it('brings the VolumeAttachment in line with what EC2 says at the end of the pass', async () => {
    const { pass, kube } = detachedBehindOurBack();

    await pass({ kind: 'node', name: 'node-a' });

    expect(kube.volumeAttachmentWrites).toEqual([`delete ${V}|node-a`]);
  });

  it('in a dry run, writes nothing anywhere even where EC2 disagrees with the record: no store item, node status or VolumeAttachment', async () => {
    const { pass, kube, store, ec2 } = detachedBehindOurBack();
    const before = structuredClone(store.items);

    const report = await pass({ kind: 'node', name: 'node-a' }, { dryRun: true });

    expect(report.dryRun).toBe(true);
    expect(store.items).toEqual(before);
    expect(kube.statusWrites).toEqual([]);
    expect(kube.volumeAttachmentWrites).toEqual([]);
    expect(ec2.calls).toEqual([]);
  });
});
