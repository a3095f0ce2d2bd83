/**
 * The attacher-mode oracle wired to the stand-ins' hooks, judging each of the controller's moves
 * against ground truth at that moment: just before EC2 carries out a DetachVolume (A2), after an
 * AttachVolume (A5), after each write to a VolumeAttachment's status (A1, that object) or to the
 * object itself (A3, if our finalizer went). Step ends add A1 over every object (stale ones the
 * world made before the step excepted) and A4 (scenario). Each violation names its step.
 */
import type { LocalEc2 } from '../../ec2/server.js';
import type { KubeSandbox } from '../../kube/index.js';
import type { RequestInfo } from '../../kube/paths.js';
import { exclusiveOnce, type Violation } from '../checks.js';
import { readTruth, type Truth } from '../truth.js';
import { detachUnderLiveVa, finalizerReleasedEarly, vaOverclaims } from './checks.js';
import { callBesideForeignLease, leaseSight, type LeaseBound } from './lease-bound.js';
import { readVaFacts, type VaFact } from './truth.js';

/** Invariant 1's checker under its attacher-mode name. */
export function exclusiveOnceA5(truth: Truth): Violation[] {
  return exclusiveOnce(truth).map((v) => ({ ...v, invariant: 'A5' as const }));
}

const vaWrite = (info: RequestInfo) =>
  info.resource === 'volumeattachments' && info.name !== undefined && ['patch', 'update', 'delete'].includes(info.verb);

export class AttacherLiveOracle {
  readonly violations: (Violation & { step: string })[] = [];
  private label = 'setup';
  /** Objects already claiming too much when the step began: the world (not a write) made them stale. */
  private staleAtStart = new Set<string>();
  /** Each object as it was just before a write to it that is on its way. */
  private readonly beforeWrite = new Map<string, VaFact>();
  private readonly stops: (() => void)[];

  constructor(
    private readonly ec2: LocalEc2,
    private readonly kube: KubeSandbox,
    /** A6, in a world with the lease fence on: where the sidecar's Lease is, whose it is, the bound and the clock. */
    private readonly fence?: LeaseBound & { lease: { namespace: string; name: string }; now: () => number },
  ) {
    this.stops = [
      ec2.onAction({
        before: (action, params) => {
          if (action === 'AttachVolume' || action === 'DetachVolume') this.judgeLease(`${action} ${params.get('VolumeId') ?? ''}`);
          if (action !== 'DetachVolume') return;
          this.record(detachUnderLiveVa(this.truth(), readVaFacts(kube), params.get('VolumeId') ?? '', params.get('InstanceId')));
        },
        after: (action) => {
          if (action === 'AttachVolume') this.record(exclusiveOnceA5(this.truth()));
        },
      }),
      kube.onRequest({
        before: (info) => {
          const fact = vaWrite(info) ? readVaFacts(kube).find((va) => va.name === info.name) : undefined;
          if (fact) this.beforeWrite.set(info.name ?? '', fact);
        },
        after: (info, status) => {
          if (!vaWrite(info)) return;
          const before = this.beforeWrite.get(info.name ?? '');
          this.beforeWrite.delete(info.name ?? '');
          if (status >= 300) return;
          const truth = this.truth();
          const facts = readVaFacts(kube);
          if (info.subresource === 'status')
            this.record(
              vaOverclaims(
                truth,
                facts.filter((va) => va.name === info.name),
              ),
            );
          else if (before)
            this.record(
              finalizerReleasedEarly(
                truth,
                before,
                facts.find((va) => va.name === info.name),
              ),
            );
        },
      }),
    ];
  }

  /** A step begins (after the cluster changed): its starting truth. */
  beginStep(label: string): Truth {
    this.label = label;
    const truth = this.truth();
    this.staleAtStart = new Set(this.overclaiming(truth).map((va) => va.name));
    return truth;
  }

  /** A1 over every object at the end of a step, but for those the world had already made stale. */
  stepEnd(truth: Truth): Violation[] {
    return vaOverclaims(
      truth,
      this.overclaiming(truth).filter((va) => !this.staleAtStart.has(va.name)),
    );
  }

  /** Something outside the controller changed the cluster mid-step: these checks keep no memory of it. */
  observe(): void {
    return undefined;
  }

  private overclaiming(truth: Truth): VaFact[] {
    return readVaFacts(this.kube).filter((va) => vaOverclaims(truth, [va]).length > 0);
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  private judgeLease(call: string): void {
    if (this.fence === undefined) return;
    const { lease, now } = this.fence;
    const stored = this.kube.get('Lease', lease.namespace, lease.name) as Parameters<typeof leaseSight>[0];
    this.record(callBesideForeignLease(leaseSight(stored), this.fence, now(), call));
  }

  private truth(): Truth {
    return readTruth(this.ec2, this.kube);
  }

  private record(violations: Violation[]): void {
    for (const violation of violations) this.violations.push({ ...violation, step: this.label });
  }
}
