/**
 * Controller mode takes an attachment EC2 shows into its actual state (and so may detach it) only
 * when a node's status or a VolumeAttachment names that volume on that node, as upstream's actual
 * state of the world holds only what it attached or a node reports. Anything else EC2 shows is
 * someone else's (an operator's attach, another controller's) and is reported, never detached.
 */
import { describe, expect, it } from 'vitest';
import { instanceOf, node, uname, vol } from '../../core/builders.js';
import { harness, podOnA, V } from '../executor-harness.js';

/** A pod on node-a names V; EC2 shows V attached to node-b's instance, which no Kubernetes object names. */
function operatorAttachedOnB() {
  const h = harness(podOnA());
  h.store.state = { version: 1, seededAt: 0 };
  h.ec2.volumes.set(V, {
    volumeId: V,
    exists: true,
    attachments: [{ instanceId: instanceOf('node-b'), state: 'attached', device: '/dev/xvdf' }],
  });
  return h;
}

describe('an attachment EC2 shows that no node status or VolumeAttachment names', () => {
  it('is not taken into the actual state, so it is never detached from its live instance', async () => {
    const h = operatorAttachedOnB();

    const report = await h.pass();

    expect(h.ec2.calls.filter((call) => call.startsWith('detach'))).toEqual([]);
    expect(h.store.items.get(V)?.attachments['node-b']).toBeUndefined();
    expect(report.unwantedAttachments).toBe(1);
  });

  it('is taken in when the node reports it, and then follows the usual rules (unmounted and unwanted there: detached)', async () => {
    const h = operatorAttachedOnB();
    h.kube.snapshot.nodes[1] = node('node-b', { attached: [{ name: uname(V), devicePath: '/dev/xvdf' }] });

    const report = await h.pass();

    expect(h.ec2.calls).toContain(`detach ${V}`);
    expect(report.unwantedAttachments).toBe(0);
  });

  it('leaves volumes no pod names alone as before', async () => {
    const h = operatorAttachedOnB();
    h.ec2.volumes.set(vol(9), {
      volumeId: vol(9),
      exists: true,
      attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdg' }],
    });

    await h.pass();

    expect(h.store.items.get(vol(9))).toBeUndefined();
  });
});
