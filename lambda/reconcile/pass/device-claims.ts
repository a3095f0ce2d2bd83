/**
 * Device names for one attach, claimed in the store (DESIGN §5, invariant 6): the EC2 adapter
 * proposes the names EC2 shows free on the instance, in the driver's order, and the first one no
 * live operation of any invocation holds is reserved with one conditional write (the first name is
 * tried blind: the write's condition is the check, and the reservations are read only when it fails). The reservation
 * lasts as long as the operation's lease; a name the attach did not use is freed at once. A name
 * that did get attached is left to expire with the lease: DescribeInstances may not show the new
 * mapping yet (EC2 reads lag writes), and the reservation keeps other invocations off it meanwhile.
 */
import type { InstanceId, VolumeId } from '../../core/types.js';
import type { DeviceClaims } from '../../ports/block-storage.js';
import type { DeviceHolder } from '../../ports/volume-store.js';
import type { PassContext } from './state.js';

/** The holder written for a name EC2 refused as "in use" (a device EC2 does not report, e.g. the AMI's). */
export const EC2_SAYS_IN_USE = 'ec2-says-in-use';
/** How long such a name stays off the list of every invocation. */
const REFUSED_FOR_MS = 60 * 60_000;

export interface DeviceClaimOf {
  volumeId: VolumeId;
  instanceId: InstanceId;
  operationId: string;
  /** The operation's lease end: the claim ends with it. */
  expiresAt: number;
}

export function deviceClaims(ctx: Pick<PassContext, 'deps'>, of: DeviceClaimOf): DeviceClaims {
  const { store } = ctx.deps;
  const holder: DeviceHolder = { volumeId: of.volumeId, operationId: of.operationId, expiresAt: of.expiresAt };
  return {
    async claim(candidates) {
      const now = ctx.deps.clock();
      const [first, ...rest] = candidates;
      if (first === undefined) return undefined;
      // The conditional write alone decides; most attaches get the first name, so it is tried before any read.
      if (await store.reserveDevice(of.instanceId, first, holder, now)) return first;
      const held = await store.reservedDevices(of.instanceId, now);
      for (const device of rest) {
        const current = held.get(device);
        if (current !== undefined && current.operationId !== of.operationId) continue;
        // Another invocation may take the name between the read and this write: then try the next.
        if (await store.reserveDevice(of.instanceId, device, holder, now)) return device;
      }
      return undefined;
    },
    async refused(device) {
      const now = ctx.deps.clock();
      const avoid = { volumeId: of.volumeId, operationId: EC2_SAYS_IN_USE, expiresAt: now + REFUSED_FOR_MS };
      await store.reserveDevice(of.instanceId, device, avoid, now, of.operationId);
    },
    unused: (device) => store.releaseDevice(of.instanceId, device, of.operationId),
  };
}
