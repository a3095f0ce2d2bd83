import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_CONFIG } from '../../../lambda/core/config.js';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import { runTargetedPass } from '../../../lambda/reconcile/controller/targeted-pass.js';
import { node, pod, pv, pvc, snapshot, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const MARGIN = DEFAULT_PLAN_CONFIG.leaseMarginMs;

/** A targeted pass for db-0 whose verification is `ageMs` old when the attach starts; returns what the attach was handed. */
async function attachAfter(ageMs: number): Promise<(SeenInstance | undefined)[]> {
  let now = T0;
  const ec2 = new FakeBlockStorage();
  const observe = ec2.observeInstances.bind(ec2);
  ec2.observeInstances = async (ids) => {
    const seen = await observe(ids);
    now += ageMs;
    return seen;
  };
  const handed: (SeenInstance | undefined)[] = [];
  const attach = ec2.attach.bind(ec2);
  ec2.attach = (request) => (handed.push(request.seen), attach(request));
  const cluster = new FakeCluster(
    snapshot({
      nodes: [node('node-a')],
      pods: [pod('db-0', { node: 'node-a', claims: ['data'] })],
      pvcs: [pvc('data')],
      pvs: [pv('pv-data', { volumeId: vol(1) })],
    }),
  );
  const deps = fakeDeps({ cluster, store: new FakeStore(), blockStorage: ec2, clock: () => now });
  await runTargetedPass(deps, { kind: 'pod', namespace: 'default', name: 'db-0' }, { deadline: T0 + 600_000 });
  return handed;
}

describe("an attach and the pass's own look at the instance", () => {
  it.each([
    ['just seen: the attach chooses its device from it', 0, true],
    ['seen within the lease margin: still used', MARGIN - 1, true],
    ['seen a lease margin ago or more: the adapter looks again', MARGIN, false],
  ])('%s', async (_case, ageMs, used) => {
    expect(await attachAfter(ageMs)).toEqual([used ? { state: 'running', mappings: [] } : undefined]);
  });
});
