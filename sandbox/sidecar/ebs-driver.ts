/**
 * The EBS CSI driver's controller service as the sidecar calls it (ControllerPublishVolume /
 * ControllerUnpublishVolume), through its own EC2 SDK client: DescribeVolumes for where a volume
 * is, the lowest free device name `/dev/xvdaa`, `/dev/xvdab`, … after the instance's block device
 * mappings, AttachVolume and DetachVolume. The stepped sidecar leaves the wait for the attachment
 * state to its next step (one step = one look); `publish` / `unpublish` do it as cloud.go's
 * AttachDisk / DetachDisk do: DescribeInstances (gathered for up to 500 ms with batching), the
 * call, then DescribeVolumes at 1 s, 1.8 s, 3.24 s, … until the state is reached.
 */
import {
  AttachVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';

export interface Ec2Attachment {
  state: string;
  device: string;
}

/** volume → instance → attachment, as DescribeVolumes shows them. */
export type Placement = Map<string, Map<string, Ec2Attachment>>;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DEVICE_NAMES = [...LETTERS].flatMap((first) => [...LETTERS].map((second) => `/dev/xvd${first}${second}`));

/** cloud.go's attachmentBackoff: 1 s, ×1.8, 13 steps. */
const ATTACHMENT_BACKOFF = { firstMs: 1_000, factor: 1.8, steps: 13 };
/** cloud.go's batchMaxDelay. */
const BATCH_MAX_DELAY_MS = 500;

interface DriverOptions {
  batching: boolean;
  sleep: (ms: number) => Promise<void>;
}

export class EbsDriver {
  private batch: { ids: Set<string>; result: Promise<Map<string, Map<string, string>>> } | undefined;
  /** Names handed out and not yet seen by EC2, per instance (the driver's device manager keeps them in memory). */
  private readonly assigned = new Map<string, Set<string>>();

  constructor(
    private readonly ec2: EC2Client,
    private readonly options: DriverOptions = { batching: false, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
  ) {}

  /**
   * ControllerPublishVolume (AttachDisk): the instance's block device mappings (DescribeInstances),
   * AttachVolume on a free name unless the mappings show the volume already, then the wait.
   */
  async publish(volumeId: string, instanceId: string): Promise<string> {
    const mappings = (await this.instanceMappings(instanceId)) ?? new Map<string, string>();
    const inFlight = this.assigned.get(instanceId) ?? new Set<string>();
    this.assigned.set(instanceId, inFlight);
    const assigned = [...mappings].find(([, volume]) => volume === volumeId)?.[0];
    const device = assigned ?? (await this.attach(volumeId, instanceId, new Set([...mappings.keys(), ...inFlight])));
    if (device === undefined) throw new Error(`no free device name on ${instanceId}`);
    inFlight.add(device);
    try {
      await this.waitFor(volumeId, instanceId, 'attached');
    } finally {
      inFlight.delete(device);
    }
    return device;
  }

  /** ControllerUnpublishVolume (DetachDisk): DescribeInstances, DetachVolume (already detached is success), then the wait. */
  async unpublish(volumeId: string, instanceId: string): Promise<void> {
    await this.instanceMappings(instanceId);
    try {
      await this.detach(volumeId, instanceId);
    } catch (error) {
      const code = (error as { name?: string }).name ?? '';
      if (['IncorrectState', 'InvalidAttachment.NotFound', 'InvalidVolume.NotFound'].includes(code)) return;
      throw error;
    }
    await this.waitFor(volumeId, instanceId, 'detached');
  }

  private async waitFor(volumeId: string, instanceId: string, state: 'attached' | 'detached'): Promise<void> {
    let delay = ATTACHMENT_BACKOFF.firstMs;
    for (let step = 0; step < ATTACHMENT_BACKOFF.steps; step++) {
      await this.options.sleep(delay);
      const seen = (await this.placement([volumeId])).get(volumeId)?.get(instanceId)?.state ?? 'detached';
      if (seen === state) return;
      delay *= ATTACHMENT_BACKOFF.factor;
    }
    throw new Error(`${volumeId} did not reach ${state} on ${instanceId}`);
  }

  /** getInstance: the instance's device → volume mappings; with batching, requests within 500 ms share one DescribeInstances. */
  private async instanceMappings(instanceId: string): Promise<Map<string, string> | undefined> {
    if (!this.options.batching) return (await this.mappings([instanceId])).get(instanceId);
    if (this.batch === undefined) {
      const ids = new Set<string>();
      const result = this.options.sleep(BATCH_MAX_DELAY_MS).then(() => {
        this.batch = undefined;
        return this.mappings([...ids]);
      });
      this.batch = { ids, result };
    }
    this.batch.ids.add(instanceId);
    return (await this.batch.result).get(instanceId);
  }

  async placement(volumeIds: readonly string[]): Promise<Placement> {
    const placement: Placement = new Map();
    if (volumeIds.length === 0) return placement;
    const answer = await this.ec2.send(new DescribeVolumesCommand({ VolumeIds: [...volumeIds] }));
    for (const volume of answer.Volumes ?? []) {
      const byInstance = new Map<string, Ec2Attachment>();
      for (const a of volume.Attachments ?? []) byInstance.set(a.InstanceId ?? '', { state: a.State ?? '', device: a.Device ?? '' });
      placement.set(volume.VolumeId ?? '', byInstance);
    }
    return placement;
  }

  /** Each instance's block device mappings, device name → volume id (the root device included). */
  private async mappings(instanceIds: readonly string[]): Promise<Map<string, Map<string, string>>> {
    const found = new Map<string, Map<string, string>>();
    const answer = await this.ec2.send(new DescribeInstancesCommand({ InstanceIds: [...instanceIds] }));
    for (const instance of (answer.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
      const byName = new Map((instance.BlockDeviceMappings ?? []).map((m) => [m.DeviceName ?? '', m.Ebs?.VolumeId ?? '']));
      if (instance.RootDeviceName && !byName.has(instance.RootDeviceName)) byName.set(instance.RootDeviceName, '');
      found.set(instance.InstanceId ?? '', byName);
    }
    return found;
  }

  /** Device names in use on each instance (its block device mappings and its root device). */
  async devicesInUse(instanceIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const used = new Map<string, Set<string>>();
    if (instanceIds.length === 0) return used;
    const answer = await this.ec2.send(new DescribeInstancesCommand({ InstanceIds: [...instanceIds] }));
    for (const instance of (answer.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
      const names = (instance.BlockDeviceMappings ?? []).flatMap((m) => m.DeviceName ?? []);
      used.set(instance.InstanceId ?? '', new Set([...names, ...(instance.RootDeviceName ? [instance.RootDeviceName] : [])]));
    }
    return used;
  }

  /** AttachVolume on the first free name (marked used); the name, or undefined when none is left. */
  async attach(volumeId: string, instanceId: string, inUse: Set<string>): Promise<string | undefined> {
    const device = DEVICE_NAMES.find((name) => !inUse.has(name));
    if (device === undefined) return undefined;
    inUse.add(device);
    await this.ec2.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device }));
    return device;
  }

  async detach(volumeId: string, instanceId: string): Promise<void> {
    await this.ec2.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId }));
  }
}
