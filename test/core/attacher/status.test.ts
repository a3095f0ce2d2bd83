/**
 * What attacher mode writes on VolumeAttachments, and the safety rule (DESIGN §11, 7) as a property:
 * never `attached: true` on an object whose volume EC2 does not show attached on that instance.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../../lambda/core/attacher/names.js';
import {
  attachErrorStatus,
  limitReachedStatus,
  attachedStatus,
  detachErrorStatus,
  detachedStatus,
  liveStatusCorrection,
  pvFinalizersToRemove,
  releasableWithoutDetach,
} from '../../../lambda/core/attacher/status.js';
import { attacherTargets, type VaTarget } from '../../../lambda/core/attacher/targets.js';
import type { Ec2AttachmentState, VolumeObservation } from '../../../lambda/core/types.js';
import { attachment, instanceOf, op, pv, record, T0, vol } from '../builders.js';
import { kcmVa, view } from './builders.js';

const V = vol(1);
const target = (o: Parameters<typeof kcmVa>[1] = {}): VaTarget => attacherTargets(view({ volumeAttachments: [kcmVa('node-a', o)] }))[0]!;
const ec2 = (state: Ec2AttachmentState | 'none', instanceId = instanceOf('node-a')): VolumeObservation => ({
  volumeId: V,
  exists: true,
  attachments: state === 'none' ? [] : [{ instanceId, state, device: '/dev/xvdaa' }],
});

describe('status bodies, field for field as external-attacher writes them', () => {
  it.each([
    ['attached', attachedStatus('/dev/xvdab'), { attached: true, attachmentMetadata: { devicePath: '/dev/xvdab' }, attachError: null }],
    ['attach error', attachErrorStatus('boom', T0), { attachError: { time: '2026-01-01T00:00:00.000Z', message: 'boom' } }],
    [
      'attach error at the attachment limit: errorCode 8 (ResourceExhausted)',
      limitReachedStatus('limit', T0),
      { attachError: { time: '2026-01-01T00:00:00.000Z', message: 'limit', errorCode: 8 } },
    ],
    ['detached', detachedStatus(), { attached: false, attachmentMetadata: null, detachError: null }],
    ['detach error', detachErrorStatus('busy', T0), { detachError: { time: '2026-01-01T00:00:00.000Z', message: 'busy' } }],
  ])('%s', (_, body, expected) => expect(body).toEqual(expected));
});

describe('liveStatusCorrection: what the end of a pass writes on a live object', () => {
  const attached = record(V, [attachment('node-a')]);
  it.each([
    ['attached in our records and EC2: report it', target(), attached, ec2('attached'), attachedStatus('/dev/xvdaa')],
    ['EC2 not asked this pass: the record speaks', target(), attached, undefined, attachedStatus('/dev/xvdaa')],
    ['already says so: nothing', target({ attached: true, devicePath: '/dev/xvdaa' }), attached, ec2('attached'), undefined],
    [
      'says attached, EC2 shows nothing: take it back',
      target({ attached: true, devicePath: '/dev/xvdaa' }),
      attached,
      ec2('none'),
      { attached: false, attachmentMetadata: null },
    ],
    [
      'says attached, no record of ours: take it back',
      target({ attached: true, devicePath: '/dev/xvdaa' }),
      undefined,
      undefined,
      { attached: false, attachmentMetadata: null },
    ],
    [
      'attached to a previous instance of the node: take it back',
      target({ attached: true, devicePath: '/dev/xvdaa' }),
      record(V, [attachment('node-a', { instanceId: instanceOf('old') })]),
      undefined,
      { attached: false, attachmentMetadata: null },
    ],
    ['still attaching: nothing yet', target(), record(V, [attachment('node-a', { state: 'attaching' })]), undefined, undefined],
    [
      'a resolution error: attachError',
      attacherTargets(view({ csiNodes: [], volumeAttachments: [kcmVa('node-a')] }))[0]!,
      undefined,
      undefined,
      attachErrorStatus('CSINode node-a has no ebs.csi.aws.com driver registered', T0),
    ],
    [
      'the same error already written: nothing',
      attacherTargets(
        view({
          csiNodes: [],
          volumeAttachments: [kcmVa('node-a', { attachError: 'CSINode node-a has no ebs.csi.aws.com driver registered' })],
        }),
      )[0]!,
      undefined,
      undefined,
      undefined,
    ],
    ['a deleting object: not this rule', target({ deleting: true, claimed: true, attached: true }), undefined, undefined, undefined],
    [
      "a capability the EBS CSI driver refuses: its words and gRPC code as attachError (the sidecar's, errorCode 3)",
      attacherTargets(view({ pvs: [pv('pv-data', { modes: ['ReadWriteMany'] })], volumeAttachments: [kcmVa('node-a')] }))[0]!,
      undefined,
      undefined,
      {
        attachError: {
          time: '2026-01-01T00:00:00.000Z',
          message: 'rpc error: code = InvalidArgument desc = Volume capability not supported',
          errorCode: 3,
        },
      },
    ],
  ])('%s', (_, t, r, observation, expected) => expect(liveStatusCorrection(t, r, observation, T0)).toEqual(expected));

  it('never says attached: true for a volume EC2 does not show attached on the object’s instance', () => {
    const states = fc.constantFrom<Ec2AttachmentState | 'none'>('none', 'attaching', 'attached', 'detaching', 'detached', 'busy');
    const recordState = fc.constantFrom('attaching', 'attached', 'detaching', 'uncertain', 'none');
    const instance = fc.constantFrom(instanceOf('node-a'), instanceOf('old'));
    fc.assert(
      fc.property(states, instance, recordState, instance, fc.boolean(), (seen, seenOn, held, heldOn, claimsAttached) => {
        const r = held === 'none' ? undefined : record(V, [attachment('node-a', { state: held, instanceId: heldOn })]);
        const observation = ec2(seen, seenOn);
        const status = liveStatusCorrection(target({ attached: claimsAttached, devicePath: '/dev/xvdaa' }), r, observation, T0);
        const ec2Shows = observation.attachments.some((a) => a.instanceId === instanceOf('node-a') && a.state !== 'detached');
        if (status?.attached === true) expect(ec2Shows).toBe(true);
        // An object that claims an attachment EC2 does not show is corrected.
        if (claimsAttached && !ec2Shows) expect(status).toMatchObject({ attached: false });
      }),
    );
  });
});

describe('releasableWithoutDetach: a deleting object with nothing of ours behind it', () => {
  const deleting = target({ deleting: true, claimed: true });
  it.each([
    ['EC2 shows nothing on its instance: let go', deleting, undefined, ec2('none'), true],
    ['EC2 shows it on another instance only: let go', deleting, undefined, ec2('attached', instanceOf('other')), true],
    ['EC2 shows it attached there: detach first', deleting, undefined, ec2('attached'), false],
    ['EC2 not asked: wait', deleting, undefined, undefined, false],
    ['our record holds the attachment: the plan detaches it', deleting, record(V, [attachment('node-a')]), ec2('none'), false],
    [
      'an operation in flight on the pair: it settles first',
      deleting,
      record(V, [], { operations: { volume: op('attach', 'node-a') } }),
      ec2('none'),
      false,
    ],
    ['without our finalizer: already detached, nothing to do', target({ deleting: true }), undefined, ec2('none'), false],
    ['a live object: never', target({ claimed: true }), undefined, ec2('none'), false],
  ])('%s', (_, t, r, observation, expected) => expect(releasableWithoutDetach(t, r, observation)).toBe(expected));
});

describe('pvFinalizersToRemove: ours comes off a deleting PV no VolumeAttachment names', () => {
  const deletingPv = (name: string, finalizers = [ATTACHER_FINALIZER]) => ({
    ...pv(name),
    metadata: { name, finalizers, deletionTimestamp: new Date(T0) },
  });
  it.each([
    ['deleting, ours, unreferenced', [deletingPv('pv-x')], [], ['pv-x']],
    ['deleting, ours, still named by a VolumeAttachment', [deletingPv('pv-data')], [kcmVa('node-a')], []],
    ['named by another attacher’s object: still kept', [deletingPv('pv-data')], [kcmVa('node-a', { attacher: 'other' })], []],
    ['not deleting', [{ ...pv('pv-x'), metadata: { name: 'pv-x', finalizers: [ATTACHER_FINALIZER] } }], [], []],
    ['deleting without our finalizer', [deletingPv('pv-x', ['kubernetes.io/pv-protection'])], [], []],
  ])('%s', (_, pvs, vas, expected) => expect(pvFinalizersToRemove(pvs, vas).map((p) => p.metadata.name)).toEqual(expected));
});
