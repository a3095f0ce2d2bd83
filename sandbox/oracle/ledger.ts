/**
 * API calls as the servers saw them, drained after every step: the DetachVolume calls the
 * invariant checks need, and running totals by service and operation for summaries and the
 * benchmark. Draining resets the sandboxes' own counters, so their logs stay small.
 */
import type { Ec2Controls } from '../ec2/control.js';
import type { KubeSandbox } from '../kube/index.js';
import type { DetachCall, Ec2Mutation } from './calls.js';

export type CallCounts = Record<string, number>;

export interface ServiceTotals {
  calls: CallCounts;
  /** EC2 calls answered RequestLimitExceeded, by action. */
  throttled: CallCounts;
  /** Calls failed by fault injection, by action or request. */
  injected: CallCounts;
}

export interface Drained {
  detaches: DetachCall[];
  /** AttachVolume and DetachVolume calls in the order EC2 received them. */
  mutations: Ec2Mutation[];
  ec2: CallCounts;
  kube: CallCounts;
  /** False when EC2's ring of recent requests overflowed, so some DetachVolume calls went unseen. */
  complete: boolean;
}

export class ApiLedger {
  readonly ec2Totals: ServiceTotals = { calls: {}, throttled: {}, injected: {} };
  readonly kubeTotals: ServiceTotals = { calls: {}, throttled: {}, injected: {} };
  /** Calls counted by other means (DynamoDB), by operation. */
  readonly other = new Map<string, ServiceTotals>();

  constructor(
    private readonly ec2: Pick<Ec2Controls, 'counters' | 'requests' | 'resetCounters'>,
    private readonly kube: Pick<KubeSandbox, 'counters' | 'requests' | 'resetRequests'>,
  ) {}

  drain(): Drained {
    const snapshot = this.ec2.counters();
    const mutations = this.ec2
      .requests()
      .filter((r) => r.action === 'AttachVolume' || r.action === 'DetachVolume')
      .map((r) => ({
        action: r.action as Ec2Mutation['action'],
        volumeId: r.params.VolumeId ?? '',
        ...(r.params.InstanceId ? { instanceId: r.params.InstanceId } : {}),
        ...(r.params.Device ? { device: r.params.Device } : {}),
      }));
    const detaches = mutations
      .filter((m) => m.action === 'DetachVolume')
      .map(({ volumeId, instanceId }) => (instanceId === undefined ? { volumeId } : { volumeId, instanceId }));
    this.ec2.resetCounters();
    add(this.ec2Totals.calls, snapshot.calls);
    add(this.ec2Totals.throttled, snapshot.throttled);
    add(this.ec2Totals.injected, snapshot.injected);
    const kube = this.kube.counters();
    const injected = this.kube.requests().filter((r) => r.injected === true).length;
    this.kube.resetRequests();
    add(this.kubeTotals.calls, kube);
    if (injected > 0) add(this.kubeTotals.injected, { injected });
    return { detaches, mutations, ec2: snapshot.calls, kube, complete: detaches.length === (snapshot.calls.DetachVolume ?? 0) };
  }

  /** Records a call seen by a counting hook (e.g. DynamoDB's X-Amz-Target). */
  count(service: string, operation: string, n = 1): void {
    let totals = this.other.get(service);
    if (!totals) this.other.set(service, (totals = { calls: {}, throttled: {}, injected: {} }));
    totals.calls[operation] = (totals.calls[operation] ?? 0) + n;
  }
}

function add(into: CallCounts, from: CallCounts): void {
  for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
}

export function total(counts: CallCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}
