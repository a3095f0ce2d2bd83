/** Device names: EBS CSI order, what makes a name taken, and names EC2 refused. */
import { describe, expect, it } from 'vitest';
import { DEVICE_NAMES, DeviceAllocator } from '../../lambda/adapters/ec2/devices.js';

function allocator(start = 0) {
  let now = start;
  const devices = new DeviceAllocator({ now: () => now, holdMs: 1_000, avoidMs: 10_000 });
  return { devices, advance: (ms: number) => (now += ms) };
}

describe('DEVICE_NAMES', () => {
  it('follows the EBS CSI order and skips the xvdc* names', () => {
    expect(DEVICE_NAMES.slice(0, 3)).toEqual(['/dev/xvdaa', '/dev/xvdab', '/dev/xvdac']);
    expect(DEVICE_NAMES[26]).toBe('/dev/xvdba');
    expect(DEVICE_NAMES[52]).toBe('/dev/xvdda');
    expect(DEVICE_NAMES).toContain('/dev/xvddx');
    expect(DEVICE_NAMES).not.toContain('/dev/xvddy');
    expect(DEVICE_NAMES.some((name) => name.startsWith('/dev/xvdc') && name.length === 11)).toBe(false);
    expect(new Set(DEVICE_NAMES).size).toBe(DEVICE_NAMES.length);
  });
});

describe('DeviceAllocator', () => {
  it.each([
    ['the first name when nothing is taken', [], [], '/dev/xvdaa'],
    ['skips names in the block device mappings', ['/dev/xvda', '/dev/xvdaa'], [], '/dev/xvdab'],
    ['skips names reserved by operations in flight', [], ['/dev/xvdaa', '/dev/xvdab'], '/dev/xvdac'],
  ])('%s', (_name, inEc2, reserved, expected) => {
    expect(allocator().devices.pick('i-1', inEc2, reserved)).toBe(expected);
  });

  it('treats /dev/sdX and /dev/xvdX as one slot', () => {
    const { devices } = allocator();
    const taken = DEVICE_NAMES.filter((name) => name !== '/dev/xvdf' && name !== '/dev/sdf');
    expect(devices.pick('i-1', [...taken, '/dev/sdf1'])).toBeUndefined();
  });

  it('never hands out a name twice while EC2 does not show it yet', () => {
    const { devices } = allocator();
    const picks = Array.from({ length: 30 }, () => devices.pick('i-1', []));
    expect(new Set(picks).size).toBe(30);
  });

  it('keeps instances apart', () => {
    const { devices } = allocator();
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa');
    expect(devices.pick('i-2', [])).toBe('/dev/xvdaa');
  });

  it('a held name is free again after release, or after the hold expires', () => {
    const { devices, advance } = allocator();
    devices.pick('i-1', []);
    devices.release('i-1', '/dev/xvdaa');
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa');
    advance(1_000);
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa');
  });

  it('a hold is dropped once EC2 shows the name (EC2 then reports it itself)', () => {
    const { devices } = allocator();
    devices.pick('i-1', []);
    expect(devices.pick('i-1', ['/dev/xvdaa'])).toBe('/dev/xvdab');
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa'); // detached meanwhile: EC2 no longer shows it
  });

  it('a refused name goes last until EC2 accepts it or the avoidance expires', () => {
    const { devices, advance } = allocator();
    devices.pick('i-1', []);
    devices.refused('i-1', '/dev/xvdaa');
    expect(devices.pick('i-1', [])).toBe('/dev/xvdab');
    const allButRefused = DEVICE_NAMES.filter((name) => name !== '/dev/xvdaa');
    expect(devices.pick('i-1', allButRefused)).toBe('/dev/xvdaa');
    devices.accepted('i-1', '/dev/xvdaa');
    devices.release('i-1', '/dev/xvdaa');
    advance(1_000);
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa');
    devices.refused('i-1', '/dev/xvdaa');
    advance(10_000);
    expect(devices.pick('i-1', [])).toBe('/dev/xvdaa');
  });

  it('undefined when every name is taken', () => {
    expect(allocator().devices.pick('i-1', DEVICE_NAMES)).toBeUndefined();
  });
});
