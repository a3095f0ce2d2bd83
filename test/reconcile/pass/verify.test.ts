/**
 * Verification against EC2 (lambda/reconcile/pass/verify.ts), through a full pass whose verification is
 * due: which EC2 calls it makes, and what EC2's word on an instance does to the plan.
 */
import { describe, expect, it } from 'vitest';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import { instanceOf, MIN, node, record, snapshot, T0 } from '../../core/builders.js';
import { harness, podOnA, V } from '../executor-harness.js';

/** A harness whose full pass is due to verify (the last verification is two minutes old), counting DescribeInstances. */
function due(...args: Parameters<typeof harness>) {
  const h = harness(...args);
  h.store.state = { version: 1, lastVerifiedAt: T0 - 2 * MIN, seededAt: T0 - 60 * MIN };
  const observed: string[][] = [];
  const observe = h.ec2.observeInstances.bind(h.ec2);
  h.ec2.observeInstances = (ids) => (observed.push(ids), observe(ids));
  return { ...h, observed };
}

describe('a due verification', () => {
  it('of nodes without volumes asks EC2 about the instances only', async () => {
    const { pass, ec2, observed } = due(snapshot({ nodes: [node('node-a')] }));

    const report = await pass();

    expect(ec2.describes).toEqual([]);
    expect(observed).toEqual([[instanceOf('node-a')]]);
    expect(report.verified).toBe(true);
  });

  it('of a volume on record attached nowhere, with no node, asks EC2 about the volume only', async () => {
    const kept = record(V, [], { backoff: { 'attach:node-a': { failures: 1, notBefore: T0 + MIN, lastError: 'no' } } });
    const { pass, ec2, observed } = due(snapshot({}), [kept]);

    const report = await pass();

    expect(ec2.describes).toEqual([[V]]);
    expect(observed).toEqual([]);
    expect(report.verified).toBe(true);
  });
});

describe("EC2's word on the instance behind a pod's node", () => {
  it.each<[string, SeenInstance | 'missing', string[]]>([
    ['running: the volume is attached', { state: 'running', mappings: [] }, [`attach ${V}`, 'wait attached']],
    ['terminated: the attach waits', { state: 'terminated', mappings: [] }, []],
    ['unknown to EC2: the attach waits', 'missing', []],
    ['without a state: read as unknown, the attach waits', { state: undefined, mappings: [] }, []],
  ])('%s', async (_case, instance, calls) => {
    const { pass, ec2 } = due(podOnA());
    ec2.observeInstances = (ids) => Promise.resolve(new Map(ids.map((id) => [id, instance])));

    const report = await pass();

    expect(ec2.calls).toEqual(calls);
    const waits = report.deferred.filter((d) => d.code === 'instance-not-running');
    expect(waits.map((d) => [d.volumeId, d.nodeName])).toEqual(calls.length > 0 ? [] : [[V, 'node-a']]);
  });
});
