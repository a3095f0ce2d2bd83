/**
 * A dry-run attacher pass is the shadow of the csi-attacher sidecar (issue #12): it asks EC2
 * about every volume the cluster names, compares, logs each disagreement once, and writes nothing.
 */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { VolumeObservation } from '../../../lambda/core/types.js';
import { runAttacherFullPass } from '../../../lambda/reconcile/attacher/full-pass.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { instanceOf, node, pv, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const budget = { deadline: T0 + 60_000 };
const nodes = ['node-a', 'node-b'];

const onEc2 = (n: number, nodeName?: string): VolumeObservation => ({
  volumeId: vol(n),
  exists: true,
  attachments: nodeName === undefined ? [] : [{ instanceId: instanceOf(nodeName), state: 'attached', device: '/dev/xvdaa' }],
});

/** The sidecar's world: VA n names PV pv-n of volume n; EC2 shows what `ec2` says. */
function scene(vas: KubeVolumeAttachment[], ec2: VolumeObservation[], pvCount = vas.length) {
  const pvs = Array.from({ length: pvCount }, (_, i) => pv(`pv-${i + 1}`, { volumeId: vol(i + 1) }));
  const cluster = new FakeCluster({ nodes: nodes.map((n) => node(n)), pods: [], pvcs: [], pvs, volumeAttachments: vas });
  cluster.csiNodes = nodes.map((n) => csiNode(n));
  const store = new FakeStore();
  const blockStorage = new FakeBlockStorage();
  for (const o of ec2) blockStorage.volumes.set(o.volumeId, o);
  const warnings: Record<string, unknown>[] = [];
  const log = {
    debug: () => undefined,
    info: () => undefined,
    error: () => undefined,
    warn: (_: string, extra?: object) => void warnings.push({ ...extra }),
  };
  return { cluster, store, blockStorage, warnings, deps: fakeDeps({ cluster, store, blockStorage, log }) };
}

const attachedVa = (n: number, nodeName: string) =>
  kcmVa(nodeName, { pv: `pv-${n}`, claimed: true, attached: true, devicePath: '/dev/xvdaa' });

describe('the shadow of the sidecar: a dry-run attacher pass', () => {
  it('classifies every VA, logs each disagreement, and writes nothing anywhere', async () => {
    const vas = [
      attachedVa(1, 'node-a'), // agrees
      attachedVa(2, 'node-a'), // EC2 lost it
      kcmVa('node-b', { pv: 'pv-3' }), // new: we would attach
      kcmVa('node-b', { pv: 'pv-4', claimed: true, deleting: true }), // deleting, still attached: we would detach
    ];
    const world = scene(vas, [onEc2(1, 'node-a'), onEc2(2), onEc2(3), onEc2(4, 'node-b'), onEc2(5, 'node-b')], 5);

    const report = await runAttacherFullPass(world.deps, budget, { dryRun: true });

    expect(report.shadow?.rows.map((r) => [r.volumeId, r.verdict, r.planned])).toEqual([
      [vol(1), 'agrees', 'none'],
      [vol(2), 'va-attached-ec2-not', 'attach'],
      [vol(3), 'attach-pending', 'attach'],
      [vol(4), 'detach-pending', 'detach'],
      [vol(5), 'ec2-attached-unrequested', 'none'],
    ]);
    expect(report.shadow?.counts).toMatchObject({ agrees: 1, 'va-attached-ec2-not': 1, 'attach-pending': 1, 'detach-pending': 1 });
    expect(world.warnings.filter((w) => 'verdict' in w).map((w) => w.verdict)).toEqual([
      'va-attached-ec2-not',
      'attach-pending',
      'detach-pending',
      'ec2-attached-unrequested',
    ]);
    expect(world.cluster.attacherWrites).toEqual([]);
    expect(world.cluster.statusWrites).toEqual([]);
    expect(world.blockStorage.calls).toEqual([]);
    expect(world.store.items.size).toBe(0);
  });

  it('asks EC2 about every volume a VA or an EBS PV names, even between sync periods', async () => {
    const world = scene([attachedVa(1, 'node-a')], [onEc2(1, 'node-a')], 3);
    world.store.state = { version: 1, lastVerifiedAt: T0 };

    const report = await runAttacherFullPass(world.deps, budget, { dryRun: true });

    expect(world.blockStorage.describes).toEqual([[vol(1), vol(2), vol(3)]]);
    expect(report.shadow?.counts.agrees).toBe(1);
  });

  it.each([
    ['a pass that writes', { dryRun: false }, false],
    ['a dry run of a partial read', { dryRun: true }, true],
  ])('%s compares nothing', async (_, options, unreadable) => {
    const world = scene([attachedVa(1, 'node-a')], [onEc2(1, 'node-a')]);
    if (unreadable) world.cluster.readAttacherView = () => Promise.reject(new Error('forbidden'));

    const report = await runAttacherFullPass(world.deps, budget, options);

    expect(report.shadow).toBeUndefined();
  });
});
