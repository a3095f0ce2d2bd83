/**
 * A takeover too large for one invocation: the first full pass runs out of its deadline midway,
 * the next one continues where it stopped. Across both, every claimed volume is described by EC2
 * once and written once, and nothing is attached, detached or reported while the takeover is partial.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeId } from '../../lambda/core/types.js';
import { runFullPass } from '../../lambda/reconcile/full-pass.js';
import { instanceOf, node, snapshot, T0, uname, vol } from '../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../support/fake-ports.js';

const NODES = 110;
const PER_NODE = 10;
/** Unneeded and unmounted: a complete takeover detaches it; a partial one must not. */
const UNNEEDED = vol(1);
/** Claimed by its node, but EC2 shows it attached nowhere: settled to nothing, never written. */
const REFUTED = vol(NODES * PER_NODE);

const volumesOf = (n: number) => Array.from({ length: PER_NODE }, (_, i) => vol(n * PER_NODE + i + 1));
const nodeName = (n: number) => `node-${n}`;

/** Every node reports its volumes attached; all but UNNEEDED are mounted. */
function scene() {
  const nodes = Array.from({ length: NODES }, (_, n) =>
    node(nodeName(n), {
      attached: volumesOf(n).map((id, i) => ({ name: uname(id), devicePath: `/dev/xvda${String.fromCharCode(97 + i)}` })),
      inUse: volumesOf(n).filter((id) => id !== UNNEEDED),
    }),
  );
  const store = new FakeStore();
  const kube = new FakeCluster(snapshot({ nodes }));
  const ec2 = new FakeBlockStorage();
  for (let n = 0; n < NODES; n++)
    for (const [i, volumeId] of volumesOf(n).entries()) {
      const attachments =
        volumeId === REFUTED
          ? []
          : [{ instanceId: instanceOf(nodeName(n)), state: 'attached' as const, device: `/dev/xvda${String.fromCharCode(97 + i)}` }];
      ec2.volumes.set(volumeId, { volumeId, exists: true, attachments });
    }
  const puts: VolumeId[] = [];
  let ids = 0;
  const deps = fakeDeps({ cluster: kube, store, blockStorage: ec2, newId: () => `id-${++ids}` });
  return { deps, store, kube, ec2, puts };
}

const counted = (ids: VolumeId[]) => {
  const counts = new Map<VolumeId, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

describe('a takeover that runs out of its deadline midway', () => {
  it('records what it did, changes nothing in the cluster or EC2, and the next invocation continues without repeating a call', async () => {
    const { deps, store, kube, ec2, puts } = scene();
    const firstInvocation = new AbortController();
    store.beforePut = (next) => {
      puts.push(next.volumeId);
      firstInvocation.abort(); // the deadline passes while the first volumes are being written
    };

    const partial = await runFullPass(deps, { deadline: T0 + 300_000, signal: firstInvocation.signal });

    const firstDescribed = ec2.describes.flat();
    expect(firstDescribed.length).toBeGreaterThan(0);
    expect(firstDescribed.length).toBeLessThan(NODES * PER_NODE);
    expect(store.items.size).toBe(firstDescribed.length);
    expect(store.state.seededAt).toBeUndefined();
    expect(ec2.calls).toEqual([]);
    expect(kube.statusWrites).toEqual([]);
    expect(kube.volumeAttachmentWrites).toEqual([]);
    expect(partial.converged).toBe(false);

    const complete = await runFullPass(deps, { deadline: T0 + 300_000 });

    const described = counted(ec2.describes.flat());
    expect([...described.keys()].sort()).toEqual(Array.from({ length: NODES * PER_NODE }, (_, i) => vol(i + 1)));
    expect([...described.values()].every((n) => n === 1)).toBe(true);
    const written = counted(puts.filter((id) => id !== UNNEEDED));
    expect(written.size).toBe(NODES * PER_NODE - 2);
    expect(written.has(REFUTED)).toBe(false);
    expect([...written.values()].every((n) => n === 1)).toBe(true);
    expect(ec2.calls).toEqual([`detach ${UNNEEDED}`, 'wait detached']);
    expect(store.state).toMatchObject({ seededAt: T0, lastVerifiedAt: T0 });
    expect(complete.seeded).toBe(true);
  });
});
