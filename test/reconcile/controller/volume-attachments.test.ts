/**
 * A full pass brings every EBS VolumeAttachment in line with the actual state. When the volume
 * left a node while a pod came back to that node (detached from node-1, then a second pod claimed
 * the RWO volume there and got a Multi-Attach error), the object must
 * not go on saying `attached: true` (invariant 4 / 5): the kubelet would mount a device that is gone.
 */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { runFullPass } from '../../../lambda/reconcile/controller/full-pass.js';
import { EBS_CSI_DRIVER } from '../../../lambda/core/types.js';
import type { VolumeAttachmentStatus } from '../../../lambda/ports/cluster.js';
import { attachment, node, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(3);

function volumeAttachment(nodeName: string, status: KubeVolumeAttachment['status']): KubeVolumeAttachment {
  return {
    metadata: { name: `csi-${nodeName}` },
    spec: { attacher: EBS_CSI_DRIVER, nodeName, source: { persistentVolumeName: 'pv-data' } },
    status,
  };
}

/** The RWO volume is attached to node-b (its pod runs there); a second pod wants it on node-a. */
async function passWith(onNodeA: KubeVolumeAttachment['status']): Promise<FakeCluster> {
  const kube = new FakeCluster(
    snapshot({
      nodes: [node('node-a'), node('node-b', { attached: [] })],
      pods: [pod('db-0', { node: 'node-b', claims: ['data'] }), pod('db-1', { node: 'node-a', claims: ['data'] })],
      pvcs: [pvc('data')],
      pvs: [pv('pv-data', { volumeId: V })],
      volumeAttachments: [volumeAttachment('node-a', onNodeA)],
    }),
  );
  const store = new FakeStore();
  store.items.set(V, record(V, [attachment('node-b', { reported: false })]));
  store.state = { version: 1, lastVerifiedAt: T0, seededAt: T0 };
  const deps = fakeDeps({ cluster: kube, store });
  await runFullPass(deps, { deadline: T0 + 60_000 });
  return kube;
}

describe('VolumeAttachments of a node the volume left while a pod still wants it there', () => {
  it.each<[string, KubeVolumeAttachment['status'], VolumeAttachmentStatus | undefined]>([
    [
      'one still saying attached is set to not attached',
      { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
      { attached: false },
    ],
    [
      'one already saying not attached (with its attachError) is left for the user to read',
      { attached: false, attachError: { message: 'Multi-Attach error' } },
      undefined,
    ],
  ])('%s', async (_name, status, written) => {
    const kube = await passWith(status);
    expect(kube.volumeAttachments.get(`${V}|node-a`)).toEqual(written);
  });
});

/**
 * A VolumeAttachment of an inline volume names its EBS volume in `inlineVolumeSpec.csi`. It must be
 * matched to the volume's record by the parsed id, like every other source: keyed by the raw
 * handle, an `aws://<zone>/vol-…` handle matched no record, so the pass rewrote the object and
 * then deleted it as an attachment nobody has (the kubelet would lose the device it mounts).
 */
describe('VolumeAttachments of an inline volume are matched by the EBS id their spec names', () => {
  const inlineVa = (csi: { driver: string; volumeHandle: string }): KubeVolumeAttachment => ({
    metadata: { name: 'csi-inline' },
    spec: { attacher: EBS_CSI_DRIVER, nodeName: 'node-a', source: { inlineVolumeSpec: { csi } } },
    status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
  });

  it.each<[string, { driver: string; volumeHandle: string }, string[]]>([
    [
      'an aws://<zone>/vol-… handle is the attached volume: already up to date, nothing written',
      { driver: EBS_CSI_DRIVER, volumeHandle: `aws://us-east-1a/${V}` },
      [],
    ],
    [
      'an invalid handle names no volume: left alone, the volume gets its own object',
      { driver: EBS_CSI_DRIVER, volumeHandle: 'vol-bogus' },
      [`upsert ${V}|node-a`],
    ],
    [
      "another driver's inline spec is not ours: left alone",
      { driver: 'efs.csi.aws.com', volumeHandle: 'fs-1234' },
      [`upsert ${V}|node-a`],
    ],
  ])('%s', async (_name, csi, writes) => {
    const kube = new FakeCluster(
      snapshot({
        nodes: [node('node-a', { attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
        pods: [pod('scratch-0', { node: 'node-a', inline: [{ name: 'scratch', volumeID: `aws://us-east-1a/${V}` }] })],
        volumeAttachments: [inlineVa(csi)],
      }),
    );
    const store = new FakeStore();
    store.items.set(V, record(V, [attachment('node-a')]));
    store.state = { version: 1, lastVerifiedAt: T0, seededAt: T0 };
    const deps = fakeDeps({ cluster: kube, store });

    await runFullPass(deps, { deadline: T0 + 60_000 });

    expect(kube.volumeAttachmentWrites).toEqual(writes);
  });
});
