/** Device names: EBS CSI order and what EC2 shows as taken (who gets a free name is claimed in the store). */
import { describe, expect, it } from 'vitest';
import { DEVICE_NAMES, freeDeviceNames } from '../../lambda/adapters/ec2/devices.js';

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

describe('freeDeviceNames: the candidates the adapter proposes, in order', () => {
  it.each([
    ['every name on an instance without mappings', [], '/dev/xvdaa'],
    ['skips names in the block device mappings', ['/dev/xvda', '/dev/xvdaa'], '/dev/xvdab'],
    ['skips both spellings of one slot (/dev/sdf1 takes xvdf and sdf)', ['/dev/sdf1'], '/dev/xvdaa'],
  ])('%s', (_name, inEc2, first) => {
    expect(freeDeviceNames(inEc2)[0]).toBe(first);
  });

  it('treats /dev/sdX and /dev/xvdX as one slot', () => {
    const taken = DEVICE_NAMES.filter((name) => name !== '/dev/xvdf' && name !== '/dev/sdf');
    expect(freeDeviceNames([...taken, '/dev/sdf1'])).toEqual([]);
  });

  it('nothing when every name is taken', () => {
    expect(freeDeviceNames(DEVICE_NAMES)).toEqual([]);
  });
});
