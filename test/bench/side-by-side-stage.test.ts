/**
 * The side-by-side bench's stage plays a real cluster's part: kcm creates a pod's VolumeAttachment,
 * the informer-driven csi-attacher attaches it (finalizer, node id, `attached` with its devicePath),
 * the kubelet starts the pod only once its volume is mounted, and a deleted pod is removed only
 * after its volume is unmounted; kcm then deletes the VolumeAttachment and the sidecar detaches it.
 * Short EC2 delays; the driver's own waits (1 s, ×1.8) make it a few seconds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startImplementation, type Running } from '../../bench/side-by-side/implementations.js';
import { startStage, type Stage } from '../../bench/side-by-side/stage.js';

let stage: Stage | undefined;
let running: Running | undefined;

afterEach(async () => {
  await running?.stop();
  await stage?.stop();
  running = stage = undefined;
});

async function until(what: string, done: () => boolean, capMs = 15_000): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > capMs) throw new Error(`not within ${capMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('side-by-side stage with the informer sidecar', () => {
  it('attaches the VolumeAttachment kcm creates, starts the pod once mounted, and detaches once the pod is gone', async () => {
    stage = await startStage({ mode: 'attacher', nodes: 2, rttMs: 0, attachMs: 200, detachMs: 200, unmountMs: 100 });
    const volume = await stage.world.createVolume({ name: 'data-0' });
    running = startImplementation(stage, 'sidecar');
    const node = stage.world.nodes[0]!.name;
    const pod = () => stage?.world.kube.get('Pod', 'default', 'web-0') as { status?: { phase?: string } } | undefined;
    const attachments = () => stage?.world.ec2.world.volumes.get(volume.volumeId)?.attachments.size ?? 0;

    stage.world.addPod('web-0', volume, node, 'Pending');
    await until('the pod running', () => pod()?.status?.phase === 'Running');
    const [va] = stage.world.kube.list('VolumeAttachment') as {
      metadata: { finalizers?: string[]; annotations?: Record<string, string> };
      status?: { attached?: boolean; attachmentMetadata?: { devicePath?: string } };
    }[];
    expect(va?.metadata.finalizers).toContain('external-attacher/ebs-csi-aws-com');
    expect(va?.metadata.annotations?.['csi.alpha.kubernetes.io/node-id']).toBe(stage.world.nodes[0]!.instanceId);
    expect(va?.status).toMatchObject({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } });
    expect(stage.recorded.attachSent.get(volume.volumeId)).toBeGreaterThanOrEqual(
      stage.recorded.vaCreated.get(volume.volumeId) ?? Infinity,
    );

    stage.world.kube.kubelet.deletePod('default', 'web-0', { graceful: true });
    // The pod stays (terminating) until its volume is unmounted.
    expect(pod()).toBeDefined();
    await until('the pod gone', () => pod() === undefined);
    expect(stage.recorded.unmounted.has(volume.volumeId)).toBe(true);
    await until(
      'the volume detached and its VolumeAttachment gone',
      () => attachments() === 0 && stage?.world.kube.list('VolumeAttachment').length === 0,
    );
    expect(stage.recorded.detachSent.get(volume.volumeId)).toBeGreaterThanOrEqual(
      stage.recorded.vaDeleting.get(volume.volumeId) ?? Infinity,
    );
  });
});
