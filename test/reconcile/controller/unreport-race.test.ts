/**
 * The unreport before a detach, through the real Kubernetes adapter against the local API server,
 * when another pass writes the node's list between this pass's read and its unreport: whatever
 * the other pass did, the leaving volume must be off the live list when the unreport says ok,
 * and what the other pass listed for other volumes stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../../lambda/core/desired-state.js';
import { controllerMode } from '../../../lambda/reconcile/controller/reports.js';
import { NodeStatusUpdater } from '../../../lambda/reconcile/controller/node-status.js';
import { createPassContext } from '../../../lambda/reconcile/pass/context.js';
import { attachment, node, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { node as liveNode, startHarness, stored, type Harness } from '../../kubernetes/support.js';
import { FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const W = vol(2);
const entry = (volumeId: string, devicePath = '/dev/xvdaa') => ({ name: uname(volumeId), devicePath });

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/** A pass that read `nodeName` listing `readList`; its cluster port is the real adapter. */
function passThatRead(nodeName: string, readList: { name: string; devicePath: string }[]) {
  const read = new FakeCluster(snapshot({ nodes: [node(nodeName, { attached: readList })] }));
  const store = new FakeStore();
  const leaving = record(V, [attachment(nodeName)]);
  store.items.set(V, structuredClone(leaving));
  const deps = fakeDeps({ cluster: h.cluster, store });
  const actual = new Map([[V, structuredClone(leaving)]]);
  const ctx = createPassContext(
    deps,
    { deadline: T0 + 60_000 },
    { desired: buildDesiredState(read.snapshot), actual },
    controllerMode(deps, { pvs: [] }),
  );
  return new NodeStatusUpdater(ctx, h.cluster, ctx.deadline.leaseMs(deps.settings.plan));
}

const liveList = (name: string): unknown => stored(h.sandbox, 'Node', undefined, name)?.status?.volumesAttached ?? [];

describe('an unreport racing another writer of the node list', () => {
  it.each([
    ['another pass listed it after this pass read the node', 'n-listed-since', [], [entry(V), entry(W, '/dev/xvdab')]],
    ['the list as read still holds it', 'n-as-read', [entry(V)], [entry(V), entry(W, '/dev/xvdab')]],
    ['nobody lists it any more', 'n-gone-since', [entry(V)], [entry(W, '/dev/xvdab')]],
  ])('%s: the volume is off the live list, and the other entries stay', async (_case, nodeName, readList, liveBefore) => {
    h.sandbox.seed([liveNode(nodeName, { volumesAttached: liveBefore })]);
    const nodeStatus = passThatRead(nodeName, readList);

    const unreported = await nodeStatus.unreport(nodeName, [{ volumeId: V, uniqueName: uname(V) }]);

    expect(unreported.ok).toBe(true);
    expect(nodeStatus.wasUnreported(V, nodeName)).toBe(true);
    expect(liveList(nodeName)).toEqual([entry(W, '/dev/xvdab')]);
  });
});
