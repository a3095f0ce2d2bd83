/**
 * The EBS CSI driver's controller service as the sidecar calls it (ControllerPublishVolume /
 * ControllerUnpublishVolume), through its own EC2 SDK client: DescribeVolumes for where a volume
 * is, the lowest free device name `/dev/xvdaa`, `/dev/xvdab`, … after the instance's block device
 * mappings, AttachVolume and DetachVolume. The driver's wait for the attachment state is left to
 * the sidecar's next step (one step = one look).
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

export class EbsDriver {
  constructor(private readonly ec2: EC2Client) {}

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
