/** The shadow's preflight: which call each VolumeAttachment's dry run asks, and how EC2's answer becomes a verdict. */
import { describe, expect, it } from 'vitest';
import { keyVerdict, nextCall, type PreflightSeen } from '../../../lambda/core/attacher/preflight.js';
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

  it('the takeover waits on a refused or an unanswered dry run, and on a key our role may not grant on', () => {
    expect(BLOCKS_TAKEOVER).toEqual(['would-be-denied', 'kms-key-unlisted', 'preflight-unanswered']);
  });
});

const LISTED = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const UNLISTED = 'arn:aws:kms:eu-west-1:111122223333:key/9999abcd-12ab-34cd-56ef-1234567890ab';
const under = (ec2: VolumeObservation, kmsKeyId?: string): VolumeObservation => ({
  ...ec2,
  encrypted: true,
  ...(kmsKeyId === undefined ? {} : { kmsKeyId }),
});

describe('keyVerdict: an attach under a KMS key our role may not create the grant on', () => {
  const grantable = new Set([LISTED]);
  const verdictOf = (va: KubeVolumeAttachment, ec2: VolumeObservation) => keyVerdict(nextCall(targetOf(va), ec2), ec2, grantable)?.verdict;

  it.each([
    { name: 'an attach under an unlisted key: named', va: fresh, ec2: under(observed('none'), UNLISTED), verdict: 'kms-key-unlisted' },
    { name: 'an attach under a listed key: nothing', va: fresh, ec2: under(observed('none'), LISTED), verdict: undefined },
    { name: 'an attach of an unencrypted volume: nothing', va: fresh, ec2: observed('none'), verdict: undefined },
    {
      name: 'an encrypted volume EC2 names no key of: named (nothing proves a grant)',
      va: fresh,
      ec2: under(observed('none')),
      verdict: 'kms-key-unlisted',
    },
    {
      name: 'a detach under an unlisted key: nothing (a detach makes no grant)',
      va: reported,
      ec2: under(observed('attached'), UNLISTED),
      verdict: undefined,
    },
    { name: 'no next call: nothing', va: deleting, ec2: under(observed('none'), UNLISTED), verdict: undefined },
  ])('$name', ({ va, ec2, verdict }) => {
    expect(verdictOf(va, ec2)).toBe(verdict);
  });

  it('names the volume, the key and what to do, and does not guess whether a key ARN is the aws/ebs key', () => {
    const detail = keyVerdict(
      nextCall(targetOf(fresh), under(observed('none'), UNLISTED)),
      under(observed('none'), UNLISTED),
      grantable,
    )?.detail;
    expect(detail).toContain(V);
    expect(detail).toContain(UNLISTED);
    expect(detail).toContain('add the key to kmsKeyArns and redeploy');
    expect(detail).toContain(
      "unless this is the account's aws/ebs key: find it with `aws kms describe-key --key-id alias/aws/ebs`, and list it in kmsKeyArns to clear this",
    );
  });
});

describe('the key in the shadow comparison', () => {
  const compare = (va: KubeVolumeAttachment, ec2: VolumeObservation, seen?: PreflightSeen, grantableKeys?: ReadonlySet<string>) =>
    compareWithSidecar({
      targets: [targetOf(va)],
      observations: { volumes: new Map([[V, ec2]]) },
      actions: [],
      heldBack: [],
      nodeOfInstance: new Map([[A, 'node-a']]),
      ...(seen === undefined ? {} : { preflights: new Map([[va.metadata.name ?? '', seen]]) }),
      ...(grantableKeys === undefined ? {} : { grantableKeys }),
    }).rows[0]!;
  const keys = new Set([LISTED]);
  const allowed: PreflightSeen = { kind: 'allowed', call: 'c' };

  it.each([
    { name: 'an unlisted key outranks attach-pending', seen: allowed, kmsKeyId: UNLISTED, verdict: 'kms-key-unlisted' },
    { name: 'a listed key leaves attach-pending', seen: allowed, kmsKeyId: LISTED, verdict: 'attach-pending' },
    {
      name: 'an unlisted key outranks an unanswered dry run',
      seen: { kind: 'unanswered', call: 'c' },
      kmsKeyId: UNLISTED,
      verdict: 'kms-key-unlisted',
    },
    {
      name: 'a refused dry run stays the verdict, with the key said beside it',
      seen: { kind: 'denied', call: 'c', message: 'no' },
      kmsKeyId: UNLISTED,
      verdict: 'would-be-denied',
    },
  ] as { name: string; seen: PreflightSeen; kmsKeyId: string; verdict: string }[])('$name', ({ seen, kmsKeyId, verdict }) => {
    const row = compare(fresh, under(observed('none'), kmsKeyId), seen, keys);
    expect(row.verdict).toBe(verdict);
    if (verdict === 'would-be-denied') expect(row.detail).toMatch(/^c: no; and AttachVolume .* KMS_KEY_ARNS does not list/);
  });

  it('without the preflight (no keys handed in) the key is not judged', () => {
    expect(compare(fresh, under(observed('none'), UNLISTED)).verdict).toBe('attach-pending');
  });
});
