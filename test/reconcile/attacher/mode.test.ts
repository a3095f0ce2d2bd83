/**
 * Attacher mode's side of the seam where the shared executor asks about things kcm owns: a detach
 * goes ahead as planned (kcm already waited for the unmount), node status is never written (an
 * unreport, which the plan never makes here, is refused), and a Multi-Attach conflict tells nobody
 * (kcm tells the pods).
 */
import { describe, expect, it } from 'vitest';
import type { DetachAction, MultiAttachConflictAction } from '../../../lambda/core/actions.js';
import { uniqueNameFor } from '../../../lambda/core/volume-id.js';
import { attacherMode } from '../../../lambda/reconcile/attacher/reports.js';
import { createPassContext } from '../../../lambda/reconcile/pass/context.js';
import { buildDesiredState } from '../../../lambda/core/desired-state.js';
import { instanceOf, snapshot, T0, vol } from '../../core/builders.js';
import { FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);

function attacherPass() {
  const cluster = new FakeCluster(snapshot({}));
  const deps = fakeDeps({ cluster, store: new FakeStore() });
  const ctx = createPassContext(
    deps,
    { deadline: T0 + 60_000 },
    { desired: buildDesiredState(cluster.snapshot), actual: new Map() },
    attacherMode(deps, { targets: [] }),
  );
  return { ctx, cluster };
}

const detach: DetachAction = {
  kind: 'detach',
  volumeId: V,
  uniqueName: uniqueNameFor(V),
  nodeName: 'node-a',
  instanceId: instanceOf('node-a'),
  trigger: 'released',
  ec2Force: false,
  requiresUnreport: false,
  reason: 'kcm is deleting its VolumeAttachment',
};

describe("attacher mode's side of a pass", () => {
  it('lets a released detach go ahead without reading the node', async () => {
    const { ctx, cluster } = attacherPass();

    expect(ctx.mode.beforeDetach(ctx, detach)).toBeUndefined();
    expect(await ctx.mode.confirmDetach(ctx, detach)).toBe(true);
    expect(cluster.statusWrites).toEqual([]);
  });

  it('refuses an unreport and writes no node status: kcm owns volumesAttached', async () => {
    const { ctx, cluster } = attacherPass();

    const results = await ctx.mode.unreport(ctx, [
      { kind: 'unreport', volumeId: V, uniqueName: uniqueNameFor(V), nodeName: 'node-a', reason: 'test' },
    ]);

    expect(results).toEqual([expect.objectContaining({ kind: 'unreport', volumeId: V, outcome: 'failed' })]);
    expect(cluster.statusWrites).toEqual([]);
  });

  it('tells nobody of a Multi-Attach conflict: kcm tells the pods', async () => {
    const { ctx, cluster } = attacherPass();
    const conflict = {
      kind: 'multiAttachConflict',
      volumeId: V,
      nodeName: 'node-b',
      attachedTo: ['node-a'],
      pods: [{ namespace: 'default', name: 'db-0', uid: 'u' }],
      event: { type: 'Warning', reason: 'FailedAttachVolume', message: 'Multi-Attach error' },
      reason: 'exclusive',
    } as unknown as MultiAttachConflictAction;

    await ctx.mode.conflict(ctx, conflict);

    expect(cluster.events).toEqual([]);
    expect(cluster.attacherWrites).toEqual([]);
  });
});
