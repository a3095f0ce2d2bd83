/**
 * Device names for AttachVolume. Order as the EBS CSI driver's (devicemanager/device_names.go):
 * /dev/xvdaa…xvdaz, xvdba…xvdbz, xvdda…xvddx (xvdc* misbehaves on some Windows types), then
 * xvdb…xvdz and sdb…sdz. A name is free when EC2's block device mappings do not show it (nor its
 * sd/xvd alias), no in-flight operation reserved it, and this adapter did not hand it out recently
 * (an attach EC2 does not show yet). A name EC2 refused as "in use" goes to the back of the line.
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

export interface DeviceAllocatorOptions {
  now: () => number;
  /** How long a handed-out name stays held when EC2 has not shown it yet. */
  holdMs?: number;
  /** How long a name EC2 called "in use" is tried only after every other name. */
  avoidMs?: number;
}

export class DeviceAllocator {
  private readonly held = new Map<string, Map<string, number>>();
  private readonly avoided = new Map<string, Map<string, number>>();
  private readonly holdMs: number;
  private readonly avoidMs: number;

  constructor(private readonly options: DeviceAllocatorOptions) {
    this.holdMs = options.holdMs ?? 5 * 60_000;
    this.avoidMs = options.avoidMs ?? 60 * 60_000;
  }

  /**
   * Picks and holds a free name for `instanceId`, or undefined when every name is taken.
   * Synchronous, so concurrent attaches to one instance never receive the same name.
   */
  pick(instanceId: string, inEc2: Iterable<string>, reserved: Iterable<string> = []): string | undefined {
    const now = this.options.now();
    const taken = new Set([...inEc2].flatMap(withAliases));
    const held = this.prune(this.held, instanceId, now, this.holdMs, taken);
    const avoided = this.prune(this.avoided, instanceId, now, this.avoidMs, new Set());
    for (const name of [...reserved].flatMap(withAliases)) taken.add(name);
    const free = DEVICE_NAMES.filter((name) => !taken.has(name) && !held.has(name));
    const choice = free.find((name) => !avoided.has(name)) ?? free[0];
    if (choice !== undefined) held.set(choice, now);
    return choice;
  }

  /** The attach did not happen: the name is free again. */
  release(instanceId: string, device: string): void {
    this.held.get(instanceId)?.delete(device);
  }

  /** EC2 accepted the name: it is good again (it stays held until EC2 shows it). */
  accepted(instanceId: string, device: string): void {
    this.avoided.get(instanceId)?.delete(device);
  }

  /** EC2 said the name is in use (a device it does not report, e.g. one from the AMI). */
  refused(instanceId: string, device: string): void {
    this.release(instanceId, device);
    const avoided = this.avoided.get(instanceId) ?? new Map<string, number>();
    avoided.set(device, this.options.now());
    this.avoided.set(instanceId, avoided);
  }

  /** The entries of one instance still in force; holds EC2 now shows are dropped (EC2 reports them). */
  private prune(
    table: Map<string, Map<string, number>>,
    instanceId: string,
    now: number,
    ttl: number,
    seen: Set<string>,
  ): Map<string, number> {
    const entries = table.get(instanceId) ?? new Map<string, number>();
    for (const [name, since] of entries) {
      if (now - since >= ttl || seen.has(name)) entries.delete(name);
    }
    table.set(instanceId, entries);
    return entries;
  }
}
