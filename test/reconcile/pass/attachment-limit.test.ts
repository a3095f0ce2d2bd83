/**
 * `AttachmentLimitExceeded` is final for that node until something detaches from it (DESIGN §8,
 * as upstream's attach/detach controller and the CSI external-attacher treat ResourceExhausted):
 * no AttachVolume is sent to that node again, however long the backoff, until a volume leaves it.
 */
import { describe, expect, it } from 'vitest';
import { attachment, instanceOf, MIN, node, record, T0, uname, vol } from '../../core/builders.js';
import { harness, podOnA, V } from '../executor-harness.js';

const V2 = vol(2);

/** node-a holds V2, mounted (so it stays), and EC2 refuses V for node-a: the limit. */
function fullNode() {
  const cluster = podOnA();
  cluster.nodes[0] = node('node-a', { inUse: [V2], attached: [{ name: uname(V2), devicePath: '/dev/xvdaa' }] });
  const h = harness(cluster, [record(V2, [attachment('node-a', { mounted: true })])]);
  h.ec2.attachOutcome = { kind: 'limit-reached', message: 'The maximum number of volumes has been reached.' };
  h.ec2.volumes.set(V2, {
    volumeId: V2,
    exists: true,
    attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdaa' }],
  });
  return h;
}

describe('an attach EC2 refused with AttachmentLimitExceeded', () => {
  it('is not tried again on that node while nothing detaches from it, whatever the time', async () => {
    const h = fullNode();
    await h.pass();
    expect(h.ec2.calls.filter((c) => c.startsWith('attach'))).toHaveLength(1);

    h.deps.clock = () => T0 + 30 * MIN;
    const report = await h.pass(T0 + 31 * MIN);

    expect(h.ec2.calls.filter((c) => c.startsWith('attach'))).toHaveLength(1);
    expect(report.deferred).toContainEqual(expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'attachment-limit' }));
  });

  it('is tried again once a volume detached from that node', async () => {
    const h = fullNode();
    await h.pass();
    h.store.items.delete(V2);
    h.ec2.volumes.delete(V2);
    h.ec2.attachOutcome = { kind: 'started', device: '/dev/xvdab' };

    h.deps.clock = () => T0 + 1 * MIN;
    await h.pass(T0 + 2 * MIN);

    expect(h.ec2.calls.filter((c) => c.startsWith('attach'))).toHaveLength(2);
  });
});
