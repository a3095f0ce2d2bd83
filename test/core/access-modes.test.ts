import { describe, expect, it } from 'vitest';
import { accessModesOf, allowsMultiAttach, ebsCapability } from '../../lambda/core/access-modes.js';
import type { AccessMode } from '../../lambda/core/types.js';

describe('access modes', () => {
  it('keeps known modes in a fixed order and drops unknown ones', () => {
    expect(accessModesOf(['ReadWriteMany', 'Bogus', 'ReadWriteOnce'])).toEqual(['ReadWriteOnce', 'ReadWriteMany']);
    expect(accessModesOf(null)).toEqual([]);
    expect(accessModesOf(undefined)).toEqual([]);
  });

  it.each<[string, AccessMode[], boolean]>([
    ['RWO only is exclusive', ['ReadWriteOnce'], false],
    ['RWOP only is exclusive', ['ReadWriteOncePod'], false],
    ['RWO and RWOP are exclusive', ['ReadWriteOnce', 'ReadWriteOncePod'], false],
    ['RWO with RWX is exclusive (upstream isMultiAttachAllowed)', ['ReadWriteOnce', 'ReadWriteMany'], false],
    ['no access modes is exclusive (we would rather not try)', [], false],
    ['RWX: kcm allows several nodes', ['ReadWriteMany'], true],
    ['ROX: kcm allows several nodes', ['ReadOnlyMany'], true],
  ])("kcm's rule (isMultiAttachAllowed): %s", (_name, modes, multi) => {
    expect(allowsMultiAttach(modes)).toBe(multi);
  });
});

/**
 * What the EBS CSI driver accepts, as the csi-attacher sidecar asks it: external-attacher maps the
 * PV's access modes to one CSI access mode (csi-lib-utils accessmodes.ToCSIAccessMode; EBS has no
 * SINGLE_NODE_MULTI_WRITER capability) and its volumeMode to the access type, and the driver's
 * ControllerPublishVolume refuses what `isValidCapability` does not accept (only SINGLE_NODE_WRITER,
 * and MULTI_NODE_MULTI_WRITER on a block device). io2 Multi-Attach is EC2's to check: a volume
 * without it is refused by AttachVolume itself on a second instance, whatever the capability.
 */
describe("EBS's capability rule", () => {
  const REFUSED = { kind: 'refused', message: 'rpc error: code = InvalidArgument desc = Volume capability not supported', errorCode: 3 };
  it.each<[AccessMode[], 'Block' | 'Filesystem' | undefined, object]>([
    [['ReadWriteOnce'], 'Filesystem', { kind: 'single-node' }],
    [['ReadWriteOnce'], 'Block', { kind: 'single-node' }],
    [['ReadWriteOncePod'], 'Filesystem', { kind: 'single-node' }],
    [['ReadWriteOncePod'], 'Block', { kind: 'single-node' }],
    [['ReadWriteMany'], 'Block', { kind: 'multi-node' }],
    [['ReadWriteMany'], 'Filesystem', REFUSED],
    [['ReadWriteMany'], undefined, REFUSED],
    [['ReadOnlyMany'], 'Block', REFUSED],
    [['ReadOnlyMany'], 'Filesystem', REFUSED],
    // RWX takes precedence over the other modes (csi-lib-utils), so the PV is asked for as MULTI_NODE_MULTI_WRITER.
    [['ReadWriteOnce', 'ReadWriteMany'], 'Block', { kind: 'multi-node' }],
    [['ReadWriteOnce', 'ReadWriteMany'], 'Filesystem', REFUSED],
    [['ReadOnlyMany', 'ReadWriteMany'], 'Block', { kind: 'multi-node' }],
    [
      ['ReadWriteOnce', 'ReadOnlyMany'],
      'Filesystem',
      { kind: 'refused', message: 'CSI does not support ReadOnlyMany and ReadWriteOnce on the same PersistentVolume' },
    ],
    [
      ['ReadWriteOnce', 'ReadWriteOncePod'],
      'Filesystem',
      {
        kind: 'refused',
        message: 'Kubernetes does not support use of ReadWriteOncePod with other access modes on the same PersistentVolume',
      },
    ],
    [[], 'Filesystem', { kind: 'refused', message: 'unsupported AccessMode combination: []' }],
  ])('%j as %s: %j', (modes, volumeMode, expected) => {
    expect(ebsCapability(modes, volumeMode)).toEqual(expected);
  });
});
