/**
 * Issue 12, both modes, through the real handlers: a dead instance's volume is attached on the
 * replacement's node without waiting for a full pass — in attacher mode by the EC2 event's own
 * pass (it follows kcm's deletion and re-creation of the VolumeAttachments), in controller mode by
 * the replacement's `Scheduled` pass after the EC2 pass ended (for a stopped instance, after a
 * forced detach from the tainted node, in that same pass). The clock's only wait is upstream's:
 * the node turning NotReady 40 s after the instance died, before pod GC lets go of the old pod.
 */
import { describe, expect, it } from 'vitest';
import { measureDeadInstance, NODE_MONITOR_GRACE_MS, passesAt } from '../../sandbox/dead-instance.js';

/** Our share on top of upstream's wait: a few seconds of polling and EC2's short sandbox delays. */
const OURS_MS = 10_000;

describe('dead instance → replacement attached, both modes', () => {
  it.each([
    ['terminated', []],
    ['stopped', [{ force: false }]],
  ] as const)(
    'attacher mode, %s: the EC2 event pass alone detaches the old VolumeAttachment and attaches the new one',
    async (state, detaches) => {
      const figures = await measureDeadInstance({ mode: 'attacher', state, forwardScheduled: false });

      expect(figures.storyMs).toBeLessThan(NODE_MONITOR_GRACE_MS + OURS_MS);
      expect(figures.passes.map((p) => p.trigger)).toEqual([`EC2 event (${state})`]);
      expect(passesAt(figures)).toEqual([`EC2 event (${state})`]);
      expect(figures.detaches).toEqual(detaches);
    },
  );

  it('attacher mode, with the replacement’s Scheduled event forwarded too: attached while the EC2 event pass runs', async () => {
    const figures = await measureDeadInstance({ mode: 'attacher', state: 'terminated' });

    expect(figures.storyMs).toBeLessThan(NODE_MONITOR_GRACE_MS + OURS_MS);
    expect(passesAt(figures)).toContain('EC2 event (terminated)');
  });

  it.each([
    ['terminated', []],
    ['stopped', [{ force: true }]],
  ] as const)(
    'controller mode, %s: the Scheduled pass after the EC2 pass detaches from the tainted node and attaches',
    async (state, detaches) => {
      const figures = await measureDeadInstance({ mode: 'controller', state });

      expect(figures.storyMs).toBeLessThan(NODE_MONITOR_GRACE_MS + OURS_MS);
      expect(figures.passes.map((p) => p.trigger)).toEqual([`EC2 event (${state})`, 'Scheduled db-0 → node-2']);
      expect(figures.passes[0]!.endMs).toBeLessThanOrEqual(figures.passes[1]!.startMs);
      expect(passesAt(figures)).toEqual(['Scheduled db-0 → node-2']);
      expect(figures.detaches).toEqual(detaches);
    },
  );
});
