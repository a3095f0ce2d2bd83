/**
 * Every successful write to a VolumeAttachment, seen by the API server the moment it lands: the
 * object as stored after it and what EC2 showed for the volume at that instant (ground truth from
 * the sandbox's model, never the controller's word). Invariant 7 and external-attacher's orders
 * (finalizer off only after EC2 detached; no `attached: true` on an object being deleted) are
 * judged on this record.
 */
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { readTruth } from '../../../sandbox/oracle/truth.js';
import type { World } from '../../../sandbox/world.js';

export interface VaWrite {
  name: string;
  /** `object` (finalizer, annotation) or `status`. */
  part: 'object' | 'status';
  /** The object after the write; undefined when the write let it go (last finalizer off). */
  va: KubeVolumeAttachment | undefined;
  /** EC2's attachment states of the volume at that instant, by instance id. */
  ec2: Record<string, string>;
}

export interface VaWrites {
  writes: VaWrite[];
  stop(): void;
}

export function watchVaWrites(world: World, volumeId: string): VaWrites {
  const writes: VaWrite[] = [];
  const stop = world.kube.onRequest({
    after: (info, status) => {
      if (info.resource !== 'volumeattachments' || info.verb !== 'patch' || status >= 300 || info.name === undefined) return;
      const ec2 = Object.fromEntries(
        readTruth(world.ec2, world.kube)
          .attachments.filter((a) => a.volumeId === volumeId)
          .map((a) => [a.instanceId, a.state]),
      );
      const va = world.kube.get('VolumeAttachment', undefined, info.name) as KubeVolumeAttachment | undefined;
      writes.push({ name: info.name, part: info.subresource === 'status' ? 'status' : 'object', va, ec2 });
    },
  });
  return { writes, stop };
}
