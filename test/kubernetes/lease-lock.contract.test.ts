import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesLeaseLock } from '../../lambda/adapters/kubernetes/lease-lock.js';
import type { LeaseSpecWrite } from '../../lambda/ports/lease-lock.js';
import { startHarness, type Harness } from './support.js';

const LEASE = { name: 'external-attacher-leader-ebs-csi-aws-com', namespace: 'kube-system' };
const T0 = Date.parse('2025-03-01T12:00:00.123Z');

const record = (holderIdentity: string, at: number, extra: Partial<LeaseSpecWrite> = {}): LeaseSpecWrite => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: at,
  renewTime: at,
  leaseTransitions: 0,
  ...extra,
});

let harness: Harness;
let ours: KubernetesLeaseLock;
let theirs: KubernetesLeaseLock;
beforeEach(async () => {
  harness = await startHarness();
  ours = new KubernetesLeaseLock(harness.clients.coordination, LEASE);
  theirs = new KubernetesLeaseLock(harness.clients.coordination, LEASE);
});
afterEach(() => harness.stop());

const stored = () =>
  harness.sandbox.get('Lease', LEASE.namespace, LEASE.name) as { spec: Record<string, unknown>; metadata: Record<string, unknown> };

describe('the Lease through coordination.k8s.io/v1', () => {
  it('is undefined before anyone created it, and reads back what was created', async () => {
    expect(await ours.get()).toBeUndefined();
    expect(await ours.create(record('ebs-csi-controller-0', T0))).toBe('ok');
    expect(await ours.get()).toMatchObject({
      holderIdentity: 'ebs-csi-controller-0',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: T0,
    });
  });

  it('writes MicroTime with six fraction digits, as the API server parses it', async () => {
    await ours.create(record('us', T0));
    expect(stored().spec).toMatchObject({ acquireTime: '2025-03-01T12:00:00.123000Z', renewTime: '2025-03-01T12:00:00.123000Z' });
  });

  it('a second create is a conflict: another candidate created it first', async () => {
    expect(await theirs.create(record('ebs-csi-controller-0', T0))).toBe('ok');
    expect(await ours.create(record('us', T0))).toBe('conflict');
  });

  it('an update from a stale read loses the race (409), one from the current read wins', async () => {
    await theirs.create(record('ebs-csi-controller-0', T0));
    const seen = await ours.get();
    const renewed = await theirs.get();
    expect(await theirs.update(record('ebs-csi-controller-0', T0 + 5000), renewed?.resourceVersion as string)).toBe('ok');
    expect(await ours.update(record('us', T0 + 5000, { leaseTransitions: 1 }), seen?.resourceVersion as string)).toBe('conflict');
    const current = await ours.get();
    expect(await ours.update(record('us', T0 + 6000, { leaseTransitions: 1 }), current?.resourceVersion as string)).toBe('ok');
    expect(await theirs.get()).toMatchObject({ holderIdentity: 'us', leaseTransitions: 1 });
  });

  it('an update keeps the labels others set on the object', async () => {
    harness.sandbox.seed([
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...LEASE, labels: { app: 'ebs-csi' } }, spec: {} },
    ]);
    const seen = await ours.get();
    expect(await ours.update(record('us', T0), seen?.resourceVersion as string)).toBe('ok');
    expect(stored().metadata.labels).toEqual({ app: 'ebs-csi' });
  });

  // Upstream's Lease strategy allows create on update: why the rollback waits for our passes to end before deleting.
  it('an update of a Lease deleted since it was read creates it again', async () => {
    await theirs.create(record('ebs-csi-controller-0', T0));
    const seen = await ours.get();
    await harness.clients.coordination.deleteNamespacedLease(LEASE);
    expect(await ours.update(record('us', T0), seen?.resourceVersion as string)).toBe('ok');
    expect(await theirs.get()).toMatchObject({ holderIdentity: 'us' });
  });
});
