import { describe, expect, it } from 'vitest';
import type { DetachOutcome } from '../../../lambda/ports/block-storage.js';
import type { ActualAttachment } from '../../../lambda/core/types.js';
import { attachment, like, record } from '../../core/builders.js';
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
