/**
 * Device names for AttachVolume. Order as the EBS CSI driver's (devicemanager/device_names.go):
 * /dev/xvdaa…xvdaz, xvdba…xvdbz, xvdda…xvddx (xvdc* misbehaves on some Windows types), then
 * xvdb…xvdz and sdb…sdz. A name is a candidate when EC2's block device mappings do not show it (nor
 * its sd/xvd alias); which candidate an attach gets is claimed in the store (DeviceClaims), where
 * every invocation sees the names in flight.
 */
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function twoLetter(first: string, lastLetter = 'z'): string[] {
  return [...LETTERS.slice(0, LETTERS.indexOf(lastLetter) + 1)].map((second) => `/dev/xvd${first}${second}`);
}

export const DEVICE_NAMES: readonly string[] = [
  ...twoLetter('a'),
  ...twoLetter('b'),
  ...twoLetter('d', 'x'),
  ...[...LETTERS.slice(1)].map((letter) => `/dev/xvd${letter}`),
  ...[...LETTERS.slice(1)].map((letter) => `/dev/sd${letter}`),
];

/** `/dev/sdf` and `/dev/xvdf` name the same slot on Xen instances; treat either as taking both. */
function withAliases(device: string): string[] {
  const sd = /^\/dev\/sd([a-z])\d*$/.exec(device);
  if (sd) return [device, `/dev/xvd${sd[1]}`, `/dev/sd${sd[1]}`];
  const xvd = /^\/dev\/xvd([a-z])$/.exec(device);
  return xvd ? [device, `/dev/sd${xvd[1]}`] : [device];
}

/** The names EC2 does not show on the instance (nor their aliases), in the EBS CSI driver's order. */
export function freeDeviceNames(inEc2: Iterable<string>): string[] {
  const taken = new Set([...inEc2].flatMap(withAliases));
  return DEVICE_NAMES.filter((name) => !taken.has(name));
}
