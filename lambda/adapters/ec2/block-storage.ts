/**
 * `BlockStorage` on EC2: the composition of the adapter's parts. The client is injected (built once
 * by `createEc2Client` in the composition root); clock and sleep are injectable for tests.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { Clock } from '../../clock.js';
import type { InstanceId, InstanceState, VolumeId, VolumeObservation } from '../../core/types.js';
import type {
  AttachOutcome,
  AttachRequest,
  BlockStorage,
  DetachOutcome,
  DetachRequest,
  PreflightOutcome,
  PreflightRequest,
  SeenInstance,
  WaitRequest,
  WaitResult,
} from '../../ports/block-storage.js';
import { attachVolume, detachVolume, type AttachDetachDeps } from './attach-detach.js';
import { Ec2Reader } from './describe.js';
import { preflight } from './dry-run.js';
import { waitForAttachment } from './wait.js';

export interface Ec2BlockStorageOptions {
  client: EC2Client;
  /** Polling delays and device holds. */
  clock: Clock;
  /** waitFor's backoff: first delay (1 s) and growth factor (1.8). */
  wait?: { initialDelayMs?: number; factor?: number };
}

export class Ec2BlockStorage implements BlockStorage {
  private readonly reader: Ec2Reader;
  private readonly deps: AttachDetachDeps;

  constructor(private readonly options: Ec2BlockStorageOptions) {
    this.reader = new Ec2Reader(options.client);
    this.deps = { client: options.client, reader: this.reader };
  }

  attach(request: AttachRequest): Promise<AttachOutcome> {
    return attachVolume(this.deps, request);
  }

  detach(request: DetachRequest): Promise<DetachOutcome> {
    return detachVolume(this.deps, request);
  }

  preflight(request: PreflightRequest): Promise<PreflightOutcome> {
    return preflight(this.deps, request);
  }

  describeVolumes(volumeIds: VolumeId[]): Promise<Map<VolumeId, VolumeObservation>> {
    return this.reader.describeVolumes(volumeIds);
  }

  describeInstanceVolumes(instanceId: InstanceId): Promise<VolumeObservation[]> {
    return this.reader.describeInstanceVolumes(instanceId);
  }

  describeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, InstanceState | 'missing'>> {
    return this.reader.describeInstances(instanceIds);
  }

  observeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, SeenInstance | 'missing'>> {
    return this.reader.observeInstances(instanceIds);
  }

  waitFor(request: WaitRequest): Promise<WaitResult> {
    const observe = async (volumeId: VolumeId) => (await this.reader.describeVolumes([volumeId])).get(volumeId);
    return waitForAttachment(observe, request, {
      now: () => this.options.clock.now(),
      sleep: (ms) => this.options.clock.sleep(ms),
      ...this.options.wait,
    });
  }
}
