/**
 * A lost attach (AttachVolume timed out or got a 5xx) may still land after a later DescribeVolumes.
 * Invariant 1 therefore cannot rest on EC2's silence: the attachment stays `uncertain` and holds an
 * exclusive volume until our own call on that node settles it; were verification to drop the lost
 * attach, an RWO io2 volume could end up attached to two instances.
 */
import { describe, expect, it } from 'vitest';
import { settleAcceptedAttach } from '../../lambda/core/accepted-attach.js';
import { DEFAULT_BACKOFF } from '../../lambda/core/backoff.js';
import { plan } from '../../lambda/core/plan.js';
import { applyObservation, beginOperation, failOperation, type Transition } from '../../lambda/core/transitions.js';
import type { Action } from '../../lambda/core/actions.js';
import type { DesiredAttachment, Ec2AttachmentState, VolumeObservation, VolumeRecord } from '../../lambda/core/types.js';
import { actualOf, attachment, config, desired, instanceOf, MIN, record, T0, uname, view, vol, want } from './builders.js';

const V = vol(7);
const NODES = [view('node-a'), view('node-b')];
const byInstance = new Map(NODES.map((n) => [instanceOf(n.name), n.name]));
const ec2Shows = (...nodes: string[]): VolumeObservation => ({
  volumeId: V,
  exists: true,
  attachments: nodes.map((n) => ({ instanceId: instanceOf(n), state: 'attaching', device: '/dev/xvdba' })),
});

function accepted(result: Transition): VolumeRecord {
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.record;
}

const attachOnA = {
  volumeId: V,
  uniqueName: uname(V),
  accessModes: ['ReadWriteOnce' as const],
  multiAttach: false,
  kind: 'attach' as const,
  nodeName: 'node-a',
  instanceId: instanceOf('node-a'),
  operationId: 'op-1',
};

/** node-a's AttachVolume was accepted at T0 - 5 min, and the wait then saw `seen` instead of `attached`. */
function acceptedAttachOnA(seen: Ec2AttachmentState): VolumeRecord {
  const started = accepted(beginOperation(undefined, attachOnA, T0 - 5 * MIN, 15 * MIN));
  return accepted(settleAcceptedAttach(started, 'op-1', seen, '/dev/xvdba', T0 - 5 * MIN, DEFAULT_BACKOFF));
}

/** node-a's AttachVolume timed out at T0 - 5 min: EC2 may still be working on it. */
function lostAttachOnA(): VolumeRecord {
  const started = accepted(beginOperation(undefined, attachOnA, T0 - 5 * MIN, 15 * MIN));
  return accepted(failOperation(started, 'op-1', 'request timed out', T0 - 5 * MIN, DEFAULT_BACKOFF, { ec2MayStillBeWorking: true }));
}

/** Verification at T0 (EC2 does not show node-a's attach yet), then the plan. */
function verifyAndPlan(
  start: VolumeRecord,
  observation: VolumeObservation,
  wanted: DesiredAttachment[],
): { record: VolumeRecord; actions: Action[] } {
  const verified = accepted(applyObservation(start, observation, T0, byInstance));
  const volumes = new Map([[V, observation]]);
  return { record: verified, actions: plan(desired(wanted, NODES), actualOf(verified), { volumes }, T0, config()).actions };
}

const summary = (actions: Action[]) => actions.map((a) => `${a.kind} ${a.nodeName}`);

describe('a lost attach holds an exclusive volume until our own call settles it', () => {
  it.each<[string, () => VolumeRecord, VolumeObservation, DesiredAttachment[], string[], string[]]>([
    [
      'EC2 not showing it yet keeps it off another node; the same node is attached again',
      lostAttachOnA,
      ec2Shows(),
      [want(V, 'node-a'), want(V, 'node-b')],
      ['node-a'],
      ['attach node-a', 'multiAttachConflict node-b'],
    ],
    [
      'wanted only elsewhere now, it is detached from its node first (DetachVolume settles it), nothing attached',
      lostAttachOnA,
      ec2Shows(),
      [want(V, 'node-b')],
      ['node-a'],
      ['unreport node-a', 'detach node-a', 'multiAttachConflict node-b'],
    ],
    [
      'once EC2 shows it, it follows EC2 as before',
      lostAttachOnA,
      ec2Shows('node-a'),
      [want(V, 'node-a'), want(V, 'node-b')],
      ['node-a'],
      ['multiAttachConflict node-b'],
    ],
    [
      "a seeded claim nobody attached is still settled by EC2's word (no attach was lost)",
      () => record(V, [attachment('node-a', { state: 'uncertain' })]),
      ec2Shows(),
      [want(V, 'node-b')],
      [],
      ['attach node-b'],
    ],
  ])('%s', (_name, start, observation, wanted, kept, actions) => {
    const result = verifyAndPlan(start(), observation, wanted);
    expect(Object.keys(result.record.attachments)).toEqual(kept);
    expect(summary(result.actions)).toEqual(actions);
  });

  it('a lost attach of a volume EC2 no longer has is dropped: nothing can land', () => {
    const verified = accepted(applyObservation(lostAttachOnA(), { volumeId: V, exists: false, attachments: [] }, T0, byInstance));
    expect(verified.attachments).toEqual({});
  });
});

describe('an attach EC2 accepted but DescribeVolumes does not show attached by the wait deadline (read lag)', () => {
  it.each<[string, Ec2AttachmentState]>([
    ['no attachment at all yet', 'detached'],
    ['detaching', 'detaching'],
  ])('%s: the lock is released, the attachment kept uncertain on its device, the attach backs off', (_name, seen) => {
    const settled = acceptedAttachOnA(seen);
    expect(settled.operations).toEqual({});
    expect(settled.attachments['node-a']).toMatchObject({ state: 'uncertain', device: '/dev/xvdba', since: T0 - 5 * MIN });
    expect(settled.backoff['attach:node-a']).toMatchObject({ failures: 1, lastError: expect.stringContaining(seen) as string });
  });

  it('still attaching: the intent stays, its lease ended for the next pass to resolve', () => {
    const settled = acceptedAttachOnA('attaching');
    expect(Object.values(settled.operations)).toEqual([expect.objectContaining({ id: 'op-1', leaseExpiresAt: T0 - 5 * MIN })]);
    expect(settled.attachments['node-a']).toMatchObject({ state: 'attaching' });
  });

  it('verification while EC2 still lags keeps it, so an exclusive volume wanted elsewhere is not attached there', () => {
    const result = verifyAndPlan(acceptedAttachOnA('detached'), ec2Shows(), [want(V, 'node-a'), want(V, 'node-b')]);
    expect(Object.keys(result.record.attachments)).toEqual(['node-a']);
    expect(summary(result.actions)).toEqual(['attach node-a', 'multiAttachConflict node-b']);
  });

  // Read lag after a detach of the same volume from the same instance: the view is the old attachment's.
  describe('after an earlier attachment on another device (the lag outlasting a detach)', () => {
    const reattachOnA = (): VolumeRecord => {
      const earlier = record(V, [attachment('node-a', { state: 'uncertain', device: '/dev/xvdaa' })]);
      const started = accepted(beginOperation(earlier, attachOnA, T0 - 5 * MIN, 15 * MIN));
      return accepted(settleAcceptedAttach(started, 'op-1', 'detached', '/dev/xvdba', T0 - 5 * MIN, DEFAULT_BACKOFF));
    };
    const leftover: VolumeObservation = {
      volumeId: V,
      exists: true,
      attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdaa' }],
    };

    it('the attachment keeps the device AttachVolume answered, where the lost attach may land', () => {
      expect(reattachOnA().attachments['node-a']).toMatchObject({ state: 'uncertain', device: '/dev/xvdba' });
    });

    it('verification seeing the old attachment settles nothing: it stays uncertain, never listed', () => {
      const verified = accepted(applyObservation(reattachOnA(), leftover, T0, byInstance));
      expect(verified.attachments['node-a']).toMatchObject({ state: 'uncertain', device: '/dev/xvdba' });
    });
  });
});
