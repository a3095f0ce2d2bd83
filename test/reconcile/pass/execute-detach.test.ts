import { describe, expect, it } from 'vitest';
import type { DetachOutcome } from '../../../lambda/ports/block-storage.js';
import type { ActualAttachment } from '../../../lambda/core/types.js';
import { attachment, like, record, uname } from '../../core/builders.js';
import { harness, noPods, V } from '../executor-harness.js';

/** A volume no pod wants, unmounted on node-a: the pass unreports it, then detaches it. */
const unneeded = () => harness(noPods(), [record(V, [attachment('node-a', { mounted: false })])]);

describe("a detach, by EC2's answer", () => {
  it.each<[string, DetachOutcome, object, ActualAttachment['state']]>([
    [
      'a transient failure: EC2 may still be detaching, so the attachment turns uncertain for verification',
      { kind: 'transient', message: 'timed out' },
      { outcome: 'failed', throttled: false },
      'uncertain',
    ],
    [
      'throttled: failed, counted as a throttle, and the attachment stands',
      { kind: 'throttled', message: 'slow down' },
      { outcome: 'failed', throttled: true },
      'attached',
    ],
    [
      'a definite failure: the attachment stands as it was',
      { kind: 'failed', code: 'UnauthorizedOperation', message: 'not allowed' },
      { outcome: 'failed', throttled: false },
      'attached',
    ],
  ])('%s', async (_case, answer, result, state) => {
    const { pass, store, ec2 } = unneeded();
    ec2.detachOutcome = answer;

    const report = await pass();

    expect(report.results.filter((r) => r.kind === 'detach')).toEqual([expect.objectContaining(result)]);
    expect(store.items.get(V)?.attachments['node-a']).toEqual(like<ActualAttachment>({ state }));
  });
});

describe('a detach: what runs beside what', () => {
  it('DetachVolume is asked for (its token taken) while the live re-check runs, once the intent holds the lock; sent after the re-check', async () => {
    const { pass, store, ec2, deps } = unneeded();
    const log: string[] = [];
    ec2.onDetachAsked = () => log.push(`detach asked, ec2 ${ec2.calls.length}`);
    store.beforePut = (next) => void (Object.keys(next.operations).length > 0 ? log.push('intent written') : undefined);
    const live = deps.cluster.liveVolumes.bind(deps.cluster);
    deps.cluster.liveVolumes = async (name) => {
      log.push('live read starts');
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`live read ends, ec2 ${ec2.calls.length}`);
      return live(name);
    };

    await pass();

    expect(log.slice(0, 4)).toEqual(['intent written', 'live read starts', 'detach asked, ec2 0', 'live read ends, ec2 0']);
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
  });

  it('a detach that loses the lock race asks EC2 for nothing, not even a token', async () => {
    const { pass, store, ec2 } = unneeded();
    let asked = 0;
    ec2.onDetachAsked = () => void (asked += 1);
    store.beforePut = (next) => {
      if (Object.keys(next.operations).length > 0) store.items.set(V, { ...store.items.get(V)!, version: store.items.get(V)!.version + 7 });
    };

    await pass();

    expect(asked).toBe(0);
    expect(ec2.calls).toEqual([]);
  });

  it('a detach whose live re-check says wait: nothing sent, the intent abandoned', async () => {
    const { pass, store, ec2, deps } = unneeded();
    deps.cluster.liveVolumes = () => Promise.resolve({ attached: [], inUse: [uname(V)] });

    const report = await pass();

    expect(report.results.filter((r) => r.kind === 'detach')).toEqual([expect.objectContaining({ outcome: 'deferred' })]);
    expect(ec2.calls).toEqual([]);
    expect(store.items.get(V)?.operations).toEqual({});
  });
});
