/**
 * Taking over from kube-controller-manager (lambda/reconcile/controller/seed.ts), in small scenes: what a
 * claim EC2 refutes does to a record already on file, the takeover's lease in the controller state,
 * its progress, and stopping when the time left would not fit another step or the state moved.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_CONFIG } from '../../../lambda/core/config.js';
import type { TakeoverProgress } from '../../../lambda/ports/volume-store.js';
import { runFullPass } from '../../../lambda/reconcile/controller/full-pass.js';
import { attachment, instanceOf, node, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { harness } from '../executor-harness.js';

const DEADLINE = T0 + 60_000;

/** node-a lists the given volumes attached (no pod uses them; EC2 shows each attached nowhere unless told); the store was never seeded. */
function claimedBy(volumeIds: string[]) {
  const cluster = snapshot({
    nodes: [node('node-a', { attached: volumeIds.map((id) => ({ name: uname(id), devicePath: '/dev/xvdba' })) })],
  });
  const h = harness(cluster);
  h.store.state = { version: 0 };
  return h;
}

/** EC2 shows the volume attached to node-a's instance. */
const onNodeA = (volumeId: string) => ({
  volumeId,
  exists: true,
  attachments: [{ instanceId: instanceOf('node-a'), state: 'attached' as const, device: '/dev/xvdba' }],
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => vol(i + 1));

describe('a claim EC2 refutes', () => {
  it('empties the record already on file (written, not skipped), so the pass detaches nothing', async () => {
    const h = harness(snapshot({ nodes: [node('node-a', { attached: [{ name: uname(vol(1)), devicePath: '/dev/xvdaa' }] })] }), [
      record(vol(1), [attachment('node-a')]),
    ]);
    h.store.state = { version: 0 };

    const report = await h.pass();

    expect(h.ec2.calls).toEqual([]);
    expect(h.store.items.has(vol(1))).toBe(false);
    expect(report).toMatchObject({ seeded: true, takeover: { done: 1, left: 0 }, actualAttachments: 0 });
  });
});

describe("the takeover's lease", () => {
  it('is held by the pass, to its invocation end, while it takes over; released after', async () => {
    const h = claimedBy([vol(1)]);
    h.ec2.volumes.set(vol(1), onNodeA(vol(1)));
    const during: (TakeoverProgress | undefined)[] = [];
    h.store.beforePut = () => void during.push(h.store.state.takeover);

    await runFullPass(h.deps, { deadline: DEADLINE }, { passId: 'tick-1' });

    expect(during[0]).toEqual({ startedAt: T0, holder: { passId: 'tick-1', until: DEADLINE + DEFAULT_PLAN_CONFIG.leaseMarginMs } });
    expect(h.store.state.takeover).toBeUndefined(); // seeded: the takeover is over
  });

  it.each<[string, { passId: string; until: number }, { done: number; left: number }]>([
    ['held by this same pass (a retried invocation): taken on', { passId: 'tick-1', until: T0 + 1 }, { done: 1, left: 0 }],
    ["another pass's, ending this very moment: taken over", { passId: 'earlier', until: T0 }, { done: 1, left: 0 }],
    ["another pass's, ending a moment later: left to it", { passId: 'earlier', until: T0 + 1 }, { done: 0, left: 1 }],
  ])('%s', async (_case, holder, expected) => {
    const h = claimedBy([vol(1)]);
    h.store.state = { version: 1, takeover: { startedAt: T0 - 1_000, holder } };

    const report = await runFullPass(h.deps, { deadline: DEADLINE }, { passId: 'tick-1' });

    expect(report.takeover).toEqual(expected);
  });
});

describe("the takeover's progress", () => {
  it.each<[string, string | undefined, [string, number, number][]]>([
    ['a first pass counts every claimed volume', undefined, [1, 2, 3].map((n) => ['seeding', n, 3])],
    ['a pass resuming a takeover counts on from the volumes taken over before', vol(1), [2, 3].map((n) => ['seeding', n, 3])],
  ])('%s', async (_case, through, expected) => {
    const h = claimedBy(ids(3));
    if (through !== undefined) h.store.state = { version: 1, takeover: { startedAt: T0, through } };
    const seen: [string, number, number][] = [];
    h.deps.progress = (phase, done, total) => void seen.push([phase, done, total]);

    await h.pass();

    expect(seen.filter(([phase]) => phase === 'seeding')).toEqual(expected);
  });
});

describe('a takeover stops between steps', () => {
  it('when the time left would not fit another step as slow as the slowest so far', async () => {
    const h = claimedBy(ids(501)); // two steps: 500, then 1
    let now = T0;
    h.deps.clock = () => now;
    const describe = h.ec2.describeVolumes.bind(h.ec2);
    h.ec2.describeVolumes = (volumeIds) => {
      now += 40_000; // the first step takes 40 s; 19 s are left before the reserve
      return describe(volumeIds);
    };

    const report = await h.pass();

    expect(h.ec2.describes.map((step) => step.length)).toEqual([500]);
    expect(report.takeover).toEqual({ done: 500, left: 1 });
    expect(h.store.state.takeover).toEqual({ startedAt: T0, through: vol(500) });
  });

  it('when another pass wrote the controller state meanwhile: it leaves the rest, and the pass plans nothing', async () => {
    const h = claimedBy([vol(1)]);
    h.ec2.volumes.set(vol(1), onNodeA(vol(1)));
    // Another pass writes the controller state while this one writes the step's volume.
    h.store.beforePut = () => void (h.store.state = { ...h.store.state, version: h.store.state.version + 1 });

    const report = await h.pass();

    expect(report).toMatchObject({ takeover: { done: 0, left: 1 }, actions: [], converged: false });
    expect(h.store.state.seededAt).toBeUndefined();
  });
});
