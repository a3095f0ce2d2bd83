/**
 * kcm's actual state of world (attachdetach/cache/actual_state_of_world.go), reduced to what the
 * simulation needs: which volumes it believes attached (confirmed) or possibly attached
 * (uncertain: an attach or detach failed) to which node, which of them node status reports, and
 * when a detach was first wanted (for maxWaitForUnmountDuration).
 */
import type { VolumeToAttach } from './desired.js';

export type VolumeSpec = Omit<VolumeToAttach, 'pods'>;

export interface Attachment {
  volume: VolumeSpec;
  /** Attach succeeded; false is upstream's "uncertain". Only confirmed ones count for Multi-Attach. */
  confirmed: boolean;
  /** Listed in node.status.volumesAttached (volumesToReportAsAttached). */
  reported: boolean;
  detachRequestedAt?: number;
}

export function attachmentKey(uniqueName: string, nodeName: string): string {
  return `${uniqueName}|${nodeName}`;
}

export class ActualState {
  private readonly attachments = new Map<string, Attachment>();

  get(uniqueName: string, nodeName: string): Attachment | undefined {
    return this.attachments.get(attachmentKey(uniqueName, nodeName));
  }

  all(): Attachment[] {
    return [...this.attachments.values()];
  }

  /** MarkVolumeAsAttached: confirmed and reported; a pending detach request is forgotten. */
  markAttached(volume: VolumeSpec): void {
    this.attachments.set(attachmentKey(volume.uniqueName, volume.nodeName), { volume, confirmed: true, reported: true });
  }

  /** MarkVolumeAsUncertain: may be attached; not reported, so the kubelet does not mount it. */
  markUncertain(volume: VolumeSpec): void {
    const current = this.get(volume.uniqueName, volume.nodeName);
    this.attachments.set(attachmentKey(volume.uniqueName, volume.nodeName), {
      volume,
      confirmed: false,
      reported: false,
      ...(current?.detachRequestedAt === undefined ? {} : { detachRequestedAt: current.detachRequestedAt }),
    });
  }

  markDetached(uniqueName: string, nodeName: string): void {
    this.attachments.delete(attachmentKey(uniqueName, nodeName));
  }

  setReported(uniqueName: string, nodeName: string, reported: boolean): void {
    const attachment = this.get(uniqueName, nodeName);
    if (attachment) attachment.reported = reported;
  }

  /** SetDetachRequestTime: the first call starts the clock; returns how long detach has been wanted. */
  detachWantedFor(uniqueName: string, nodeName: string, now: number): number {
    const attachment = this.get(uniqueName, nodeName);
    if (!attachment) return 0;
    attachment.detachRequestedAt ??= now;
    return now - attachment.detachRequestedAt;
  }

  resetDetachRequest(uniqueName: string, nodeName: string): void {
    const attachment = this.get(uniqueName, nodeName);
    if (attachment) delete attachment.detachRequestedAt;
  }

  /** GetNodesForAttachedVolume: nodes where the volume's attach was confirmed. */
  confirmedNodes(uniqueName: string): string[] {
    return this.all()
      .filter((a) => a.confirmed && a.volume.uniqueName === uniqueName)
      .map((a) => a.volume.nodeName);
  }

  /** node.status.volumesAttached as the node status updater writes it (CSI: devicePath empty). */
  reportedOn(nodeName: string): { name: string; devicePath: string }[] {
    return this.all()
      .filter((a) => a.reported && a.volume.nodeName === nodeName)
      .map((a) => ({ name: a.volume.uniqueName, devicePath: '' }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  nodes(): Set<string> {
    return new Set(this.all().map((a) => a.volume.nodeName));
  }
}
