/** The shadow's preflight: which call each VolumeAttachment's dry run asks, and how EC2's answer becomes a verdict. */
import { describe, expect, it } from 'vitest';
import { nextCall, type PreflightSeen } from '../../../lambda/core/attacher/preflight.js';
import { compareWithSidecar, BLOCKS_TAKEOVER } from '../../../lambda/core/attacher/shadow.js';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { Ec2AttachmentState, VolumeObservation } from '../../../lambda/core/types.js';
import { instanceOf, vol } from '../builders.js';
import { kcmVa, view } from './builders.js';

const V = vol(1);
const A = instanceOf('node-a');

function observed(state: Ec2AttachmentState | 'none' | 'gone', on = A): VolumeObservation {
  if (state === 'gone') return { volumeId: V, exists: false, attachments: [] };
  return { volumeId: V, exists: true, attachments: state === 'none' ? [] : [{ instanceId: on, state, device: '/dev/xvdba' }] };
}

const targetOf = (va: KubeVolumeAttachment) => attacherTargets(view({ volumeAttachments: [va] }))[0]!;
const reported = kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdba' });
const fresh = kcmVa('node-a');
const deleting = kcmVa('node-a', { claimed: true, deleting: true });

describe('nextCall: the call a takeover would make next on a VolumeAttachment', () => {
  it.each([
    { name: 'attached on its instance: a detach, with its device', va: reported, ec2: observed('attached'), call: 'detach' },
    { name: 'a live VA EC2 does not show: an attach', va: fresh, ec2: observed('none'), call: 'attach' },
    { name: 'a live VA whose volume EC2 shows elsewhere: an attach here', va: fresh, ec2: observed('attached', 'i-else'), call: 'attach' },
    { name: 'a deleting VA EC2 still holds: a detach', va: deleting, ec2: observed('detaching'), call: 'detach' },
    { name: 'a deleting VA EC2 no longer holds: none', va: deleting, ec2: observed('none'), call: undefined },
    { name: 'the volume is gone: none', va: fresh, ec2: observed('gone'), call: undefined },
    { name: 'EC2 not asked: none', va: fresh, ec2: undefined, call: undefined },
  ])('$name', ({ va, ec2, call }) => {
    expect(nextCall(targetOf(va), ec2)?.action).toBe(call);
  });

  it('names the device EC2 shows for a detach, and the instance of the VA node', () => {
    expect(nextCall(targetOf(reported), observed('attached'))).toEqual({
      action: 'detach',
      volumeId: V,
      instanceId: A,
      device: '/dev/xvdba',
    });
  });
});

describe('the preflight in the shadow comparison', () => {
  const compare = (va: KubeVolumeAttachment, ec2: VolumeObservation, seen?: PreflightSeen) =>
    compareWithSidecar({
      targets: [targetOf(va)],
      observations: { volumes: new Map([[V, ec2]]) },
      actions: [],
      heldBack: [],
      nodeOfInstance: new Map([[A, 'node-a']]),
      ...(seen === undefined ? {} : { preflights: new Map([[va.metadata.name ?? '', seen]]) }),
    }).rows[0]!;
  const denied: PreflightSeen = { kind: 'denied', call: `AttachVolume ${V}`, message: 'You are not authorized to perform this operation.' };

  it.each([
    {
      name: 'allowed: the verdict stays',
      va: reported,
      ec2: observed('attached'),
      seen: { kind: 'allowed', call: 'c' },
      verdict: 'agrees',
    },
    { name: 'no preflight this pass: the verdict stays', va: reported, ec2: observed('attached'), seen: undefined, verdict: 'agrees' },
    { name: 'denied outranks agrees', va: reported, ec2: observed('attached'), seen: denied, verdict: 'would-be-denied' },
    { name: 'denied outranks attach-pending', va: fresh, ec2: observed('none'), seen: denied, verdict: 'would-be-denied' },
    {
      name: 'unanswered hides agrees',
      va: reported,
      ec2: observed('attached'),
      seen: { kind: 'unanswered', call: 'c', message: 'RequestLimitExceeded' },
      verdict: 'preflight-unanswered',
    },
    {
      name: 'unanswered leaves a disagreement as it is',
      va: fresh,
      ec2: observed('none'),
      seen: { kind: 'unanswered', call: 'c' },
      verdict: 'attach-pending',
    },
  ] as { name: string; va: KubeVolumeAttachment; ec2: VolumeObservation; seen?: PreflightSeen; verdict: string }[])(
    '$name',
    ({ va, ec2, seen, verdict }) => {
      expect(compare(va, ec2, seen).verdict).toBe(verdict);
    },
  );

  it("carries EC2's words as the reason, after the call it refused", () => {
    expect(compare(fresh, observed('none'), denied).detail).toBe(`AttachVolume ${V}: You are not authorized to perform this operation.`);
  });

  it('the takeover waits on a refused or an unanswered dry run', () => {
    expect(BLOCKS_TAKEOVER).toEqual(['would-be-denied', 'preflight-unanswered']);
  });
});
