/**
 * The invariant oracle wired to the stand-ins' hooks, so invariants are judged the moment ground
 * truth changes, not only when a step ends: just before EC2 carries out a DetachVolume
 * (invariants 2 and 3), after an AttachVolume (1), and after a DetachVolume or a node-status write
 * (5). Each violation is labelled with the step it happened in.
 */
import type { LocalEc2 } from '../ec2/server.js';
import type { KubeSandbox } from '../kube/index.js';
import { exclusiveOnce, pairKey, reportedIsAttached, type Violation } from './checks.js';
import { detachViolations, observeUnneeded, type UnneededSince } from './live-checks.js';
import { readTruth, type Truth } from './truth.js';

export interface LiveOracleOptions {
  maxWaitForUnmountMs: number;
}

export class LiveOracle {
  readonly violations: (Violation & { step: string })[] = [];
  private readonly unneededSince: UnneededSince = new Map();
  /** (volume, node) pairs EC2 lost behind the controller's back, until it has had its chance to notice. */
  private readonly pardoned = new Set<string>();
  private stepStart: Truth;
  private label = 'setup';
  private readonly stops: (() => void)[];

  constructor(
    private readonly ec2: LocalEc2,
    private readonly kube: KubeSandbox,
    private readonly options: LiveOracleOptions,
  ) {
    this.stepStart = this.truth();
    this.stops = [
      ec2.onAction({
        before: (action, params) => {
          if (action === 'DetachVolume') this.beforeDetach(params.get('VolumeId') ?? '', params.get('InstanceId'));
        },
        after: (action) => {
          if (action === 'AttachVolume') this.record(exclusiveOnce(this.truth()));
          if (action === 'DetachVolume') this.record(reportedIsAttached(this.truth(), this.pardoned));
        },
      }),
      kube.onRequest({
        after: (info, status) => {
          if (info.resource === 'nodes' && info.subresource === 'status' && status < 300)
            this.record(reportedIsAttached(this.truth(), this.pardoned));
        },
      }),
    ];
  }

  /** A step begins (after the cluster changed): its starting truth, and what became unneeded. */
  beginStep(label: string): Truth {
    this.label = label;
    this.stepStart = this.truth();
    return this.stepStart;
  }

  /** Invariant 5 spares the pair's node entry until the returned function is called. */
  pardon(volumeId: string, nodeName: string): () => void {
    const key = pairKey(volumeId, nodeName);
    this.pardoned.add(key);
    return () => void this.pardoned.delete(key);
  }

  /** The pairs invariant 5 spares now (for the step-end check). */
  get pardons(): ReadonlySet<string> {
    return this.pardoned;
  }

  /** Something outside the controller changed the cluster mid-step (a pod started): remember what it unneeded. */
  observe(): void {
    this.truth();
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  private truth(): Truth {
    const truth = readTruth(this.ec2, this.kube);
    observeUnneeded(truth, this.unneededSince);
    return truth;
  }

  private beforeDetach(volumeId: string, instanceId: string | undefined): void {
    const now = this.truth();
    this.record(
      detachViolations({
        volumeId,
        instanceId,
        now,
        stepStart: this.stepStart,
        unneededSince: this.unneededSince,
        maxWaitForUnmountMs: this.options.maxWaitForUnmountMs,
      }),
    );
  }

  private record(violations: Violation[]): void {
    for (const violation of violations) this.violations.push({ ...violation, step: this.label });
  }
}
