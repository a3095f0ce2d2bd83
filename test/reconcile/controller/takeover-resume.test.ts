/**
 * A takeover too large for one invocation: the first full pass stops midway (its deadline, or EC2
 * not answering), the next one continues where it stopped. Across both, every claimed volume is described by EC2
 * once and written once (the takeover's only write), and nothing is attached, detached or reported while the takeover is partial.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeId } from '../../../lambda/core/types.js';
import { runFullPass } from '../../../lambda/reconcile/controller/full-pass.js';
import { instanceOf, node, pod, pv, pvc, snapshot, T0, uname, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const NODES = 110;
const PER_NODE = 10;
/** Unneeded and unmounted: a complete takeover detaches it; a partial one must not. */
const UNNEEDED = vol(1);
/** Claimed by its node (not needed), but EC2 shows it attached nowhere: settled to nothing, never written. */
const REFUTED = vol(NODES * PER_NODE);

const volumesOf = (n: number) => Array.from({ length: PER_NODE }, (_, i) => vol(n * PER_NODE + i + 1));
const nodeName = (n: number) => `node-${n}`;

const claimOf = (volumeId: VolumeId) => `data-${volumeId}`;
const needed = (n: number) => volumesOf(n).filter((id) => id !== UNNEEDED && id !== REFUTED);

/** Every node reports its volumes attached; a pod on it mounts all but UNNEEDED and REFUTED. */
function scene() {
  const nodes = Array.from({ length: NODES }, (_, n) =>
    node(nodeName(n), {
      attached: volumesOf(n).map((id, i) => ({ name: uname(id), devicePath: `/dev/xvda${String.fromCharCode(97 + i)}` })),
      inUse: needed(n),
    }),
  );
  const all = Array.from({ length: NODES }, (_, n) => needed(n)).flat();
  const pods = Array.from({ length: NODES }, (_, n) => pod(`app-${n}`, { node: nodeName(n), claims: needed(n).map(claimOf) }));
  const pvcs = all.map((id) => pvc(claimOf(id)));
  const pvs = all.map((id) => pv(`pv-${claimOf(id)}`, { volumeId: id }));
  const store = new FakeStore();
  const kube = new FakeCluster(snapshot({ nodes, pods, pvcs, pvs }));
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

type Scene = ReturnType<typeof scene>;
const ALL = Array.from({ length: NODES * PER_NODE }, (_, i) => vol(i + 1));
const FIRST_STEP = ALL.slice(0, 500);

/** Stops the first invocation after its first step; undone by `resume`. */
const interruptions: [string, (s: Scene, invocation: AbortController) => { resume(): void }][] = [
  [
    'the deadline passes while the first step is being written',
    ({ store }, invocation) => {
      const before = store.beforePut;
      store.beforePut = (next) => {
        before?.(next);
        invocation.abort();
      };
      return { resume: () => (store.beforePut = before) };
    },
  ],
  [
    'EC2 cannot be asked about the second step',
    ({ ec2 }) => {
      const describe = ec2.describeVolumes.bind(ec2);
      let calls = 0;
      ec2.describeVolumes = (ids) => (++calls === 2 ? Promise.reject(new Error('RequestLimitExceeded')) : describe(ids));
      return { resume: () => (ec2.describeVolumes = describe) };
    },
  ],
];

describe('a takeover interrupted midway', () => {
  it.each(interruptions)(
    '%s: the pass records its step, changes nothing in the cluster or EC2, and the next invocation continues without repeating a call',
    async (_when, interrupt) => {
      const staged = scene();
      const { deps, store, kube, ec2, puts } = staged;
      store.beforePut = (next) => puts.push(next.volumeId);
      const firstInvocation = new AbortController();
      const interrupted = interrupt(staged, firstInvocation);

      const partial = await runFullPass(deps, { deadline: T0 + 300_000, signal: firstInvocation.signal });

      expect(ec2.describes).toEqual([FIRST_STEP]);
      expect([...store.items.keys()].sort()).toEqual(FIRST_STEP);
      expect(store.state.takeover).toEqual({ startedAt: T0, through: FIRST_STEP.at(-1) }); // released for the next pass
      expect(store.state.seededAt).toBeUndefined();
      expect(ec2.calls).toEqual([]);
      expect(kube.statusWrites).toEqual([]);
      expect(kube.volumeAttachmentWrites).toEqual([]);
      expect(partial).toMatchObject({ takeover: { done: 500, left: 600 }, converged: false, actions: [] });

      interrupted.resume();
      const complete = await runFullPass(deps, { deadline: T0 + 300_000 });

      const described = counted(ec2.describes.flat());
      expect([...described.keys()].sort()).toEqual(ALL);
      expect([...described.values()].every((n) => n === 1)).toBe(true);
      const written = counted(puts.filter((id) => id !== UNNEEDED));
      expect(written.size).toBe(ALL.length - 2);
      expect(written.has(REFUTED)).toBe(false);
      expect([...written.values()].every((n) => n === 1)).toBe(true);
      expect(ec2.calls).toEqual([`detach ${UNNEEDED}`, 'wait detached']);
      expect(store.state).toEqual({ seededAt: T0, lastVerifiedAt: T0, completeAt: T0, version: expect.any(Number) as number });
      expect(complete).toMatchObject({ seeded: true, verified: true, takeover: { done: 600, left: 0 } });
    },
  );
});

describe('two full passes taking over at once (a schedule tick while a long takeover runs)', () => {
  it('one holds the takeover; the other asks EC2 nothing and writes no volume', async () => {
    const { deps, store, ec2, puts } = scene();
    store.beforePut = (next) => puts.push(next.volumeId);

    const [first, second] = await Promise.all([
      runFullPass(deps, { deadline: T0 + 300_000 }, { passId: 'tick-1' }),
      runFullPass(deps, { deadline: T0 + 300_000 }, { passId: 'tick-2' }),
    ]);

    expect([...counted(ec2.describes.flat()).values()].every((n) => n === 1)).toBe(true);
    expect([...counted(puts.filter((id) => id !== UNNEEDED)).values()].every((n) => n === 1)).toBe(true);
    expect([first, second].map((r) => r.takeover)).toEqual(
      expect.arrayContaining([
        { done: ALL.length, left: 0 },
        { done: 0, left: ALL.length },
      ]),
    );
    expect(store.state).toEqual({ seededAt: T0, lastVerifiedAt: T0, completeAt: T0, version: expect.any(Number) as number });
  });
});

describe("a takeover another pass holds, by the holder's lease", () => {
  it.each<[string, number, { done: number; left: number }]>([
    ['a live holder (its invocation still running): left to it', T0 + 1, { done: 0, left: ALL.length }],
    ['a holder whose invocation has ended (it crashed): taken over', T0 - 1, { done: ALL.length, left: 0 }],
  ])('%s', async (_case, until, expected) => {
    const { deps, store } = scene();
    store.state = { version: 1, takeover: { startedAt: T0 - 60_000, holder: { passId: 'earlier', until } } };

    const report = await runFullPass(deps, { deadline: T0 + 300_000 });

    expect(report.takeover).toEqual(expected);
  });
});
