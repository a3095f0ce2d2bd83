/** Attacher mode's watch rule: a VolumeAttachment change asks for a pass exactly when external-attacher's handler would act. */
import { describe, expect, it } from 'vitest';
import { volumeAttachmentAsks, type VaChange } from '../../../lambda/core/attacher/watch.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { va } from '../builders.js';
import { kcmVa } from './builders.js';

describe('VolumeAttachments', () => {
  it.each<[string, VaChange, KubeVolumeAttachment, 'attach' | 'detach' | undefined]>([
    ['created by kcm: attach (syncAttach)', 'added', kcmVa('node-a'), 'attach'],
    ['our finalizer added, not attached yet: still attach', 'modified', kcmVa('node-a', { claimed: true }), 'attach'],
    ['attached: nothing to be done', 'modified', { ...kcmVa('node-a', { claimed: true }), status: { attached: true } }, undefined],
    ['an attachError: attach again (the pass backs off)', 'modified', kcmVa('node-a', { attachError: 'AttachVolume failed' }), 'attach'],
    ['deleted by kcm with our finalizer: detach (syncDetach)', 'modified', kcmVa('node-a', { claimed: true, deleting: true }), 'detach'],
    ['deleted without our finalizer: already detached', 'modified', kcmVa('node-a', { deleting: true }), undefined],
    ['gone: nothing', 'deleted', kcmVa('node-a', { claimed: true }), undefined],
    ["another driver's object: never", 'added', va('node-a', { pv: 'pv-x', attacher: 'ebs.csi.eks.amazonaws.com' }), undefined],
  ])('%s', (_name, change, object, asks) => {
    expect(volumeAttachmentAsks(change, object)).toBe(asks);
  });
});
