import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF } from '../../lambda/core/backoff.js';
import {
  abandonOperation,
  applyObservation,
  beginOperation,
  claimListing,
  clearDetachRequest,
  completeAttach,
  completeDetach,
  expiredOperations,
  failOperation,
  isEmpty,
  leaveInProgress,
  markReported,
  markUnreported,
  requestDetach,
  resolveExpired,
  seedUncertain,
  setMounted,
  takeOver,
  type BeginOperationInput,
  type Transition,
} from '../../lambda/core/transitions.js';
import {
  lockKey,
  UNIQUE_NAME_PREFIX,
  type ActualAttachment,
  type AttachmentState,
  type Backoff,
  type Ec2Attachment,
  type Operation,
  type VolumeRecord,
} from '../../lambda/core/types.js';

const NOW = 1_000_000;
const LEASE = 60_000;
const VOL = 'vol-0123456789abcdef0';
const iid = (node: string) => `i-${node}`;

// Builders: a record is a few lines; everything unstated is the boring default.
function att(node: string, state: AttachmentState = 'attached', extra: Partial<ActualAttachment> = {}): ActualAttachment {
  return {
    nodeName: node,
    instanceId: iid(node),
    state,
    device: '/dev/xvdaa',
    mounted: false,
    reported: false,
    since: NOW - 500,
    ...extra,
  };
}
function op(id: string, kind: 'attach' | 'detach', node: string, extra: Partial<Operation> = {}): Operation {
  return { id, kind, nodeName: node, instanceId: iid(node), startedAt: NOW - 100, leaseExpiresAt: NOW + LEASE, ...extra };
}
function vol(
  parts: { multiAttach?: boolean; attachments?: ActualAttachment[]; operations?: Operation[]; backoff?: Record<string, Backoff> } = {},
): VolumeRecord {
  const base = { multiAttach: parts.multiAttach ?? false };
  return {
    volumeId: VOL,
    uniqueName: `${UNIQUE_NAME_PREFIX}${VOL}`,
    accessModes: ['ReadWriteOnce'],
    multiAttach: base.multiAttach,
    attachments: Object.fromEntries((parts.attachments ?? []).map((a) => [a.nodeName, a])),
    operations: Object.fromEntries((parts.operations ?? []).map((o) => [lockKey(base, o.nodeName), o])),
    backoff: parts.backoff ?? {},
    version: 7,
  };
}
function begin(kind: 'attach' | 'detach', node: string, extra: Partial<BeginOperationInput> = {}): BeginOperationInput {
  return {
    volumeId: VOL,
    uniqueName: `${UNIQUE_NAME_PREFIX}${VOL}`,
    accessModes: ['ReadWriteOnce'],
    multiAttach: false,
    kind,
    nodeName: node,
    instanceId: iid(node),
    operationId: `op-${kind}-${node}`,
    ...extra,
  };
}
function accepted(result: Transition): VolumeRecord {
  if (!result.ok) throw new Error(`refused ${result.refused}: ${result.reason}`);
  return result.record;
}
const refusal = (result: Transition) => (result.ok ? 'accepted' : result.refused);
const failed = (failures: number): Backoff => ({ failures, notBefore: NOW + 1, lastError: 'boom' });

describe('beginOperation refuses', () => {
  it.each<[string, VolumeRecord | undefined, BeginOperationInput, string]>([
    [
      'while a live operation holds the volume',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a')] }),
      begin('attach', 'a'),
      'locked',
    ],
    [
      'while an expired operation is unresolved',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a', { leaseExpiresAt: NOW })] }),
      begin('attach', 'a'),
      'expired-operation',
    ],
    ['while the operation key backs off', vol({ backoff: { 'attach:a': failed(1) } }), begin('attach', 'a'), 'backoff'],
    [
      'an exclusive attach while another node is attaching',
      vol({ attachments: [att('b', 'attaching')] }),
      begin('attach', 'a'),
      'multi-attach',
    ],
    [
      'an exclusive attach while another node is attached',
      vol({ attachments: [att('b', 'attached')] }),
      begin('attach', 'a'),
      'multi-attach',
    ],
    [
      'an exclusive attach while another node is detaching',
      vol({ attachments: [att('b', 'detaching')] }),
      begin('attach', 'a'),
      'multi-attach',
    ],
    [
      'an exclusive attach while another node is uncertain',
      vol({ attachments: [att('b', 'uncertain')] }),
      begin('attach', 'a'),
      'multi-attach',
    ],
    [
      'a multi-attach operation while the same node is locked',
      vol({ multiAttach: true, operations: [op('x', 'attach', 'a')], attachments: [att('a', 'attaching')] }),
      begin('attach', 'a', { multiAttach: true }),
      'locked',
    ],
    ['a detach of a node without attachment', vol({ attachments: [att('b')] }), begin('detach', 'a'), 'no-attachment'],
    ['a detach of a volume never stored', undefined, begin('detach', 'a'), 'no-attachment'],
  ])('%s', (_name, record, input, expected) => {
    expect(refusal(beginOperation(record, input, NOW, LEASE))).toBe(expected);
  });
});

describe('beginOperation records the intent', () => {
  it('creates a new volume with an attaching attachment and a leased operation', () => {
    const next = accepted(beginOperation(undefined, begin('attach', 'a', { device: '/dev/xvdab' }), NOW, LEASE));
    expect(next).toEqual({
      ...vol(),
      version: 0,
      attachments: {
        a: { nodeName: 'a', instanceId: 'i-a', state: 'attaching', device: '/dev/xvdab', mounted: false, reported: false, since: NOW },
      },
      operations: {
        volume: {
          id: 'op-attach-a',
          kind: 'attach',
          nodeName: 'a',
          instanceId: 'i-a',
          device: '/dev/xvdab',
          startedAt: NOW,
          leaseExpiresAt: NOW + LEASE,
        },
      },
    });
  });

  it('re-attaching an uncertain entry keeps its device, flags and remembers it as prior', () => {
    const record = vol({
      attachments: [att('a', 'uncertain', { device: '/dev/xvdac', mounted: true, reported: true, detachRequestedAt: 5 })],
    });
    const next = accepted(beginOperation(record, begin('attach', 'a'), NOW, LEASE));
    expect(next.attachments.a).toEqual({ ...att('a', 'attaching', { device: '/dev/xvdac', mounted: true, reported: true }), since: NOW });
    expect(next.operations.volume).toMatchObject({ device: '/dev/xvdac', prior: { state: 'uncertain', device: '/dev/xvdac' } });
    expect(record.attachments.a?.state).toBe('uncertain');
  });

  it('a multi-attach volume attaches beside other nodes, each under its own lock key', () => {
    const record = vol({ multiAttach: true, attachments: [att('b'), att('c', 'attaching')], operations: [op('x', 'attach', 'c')] });
    const next = accepted(beginOperation(record, begin('attach', 'a', { multiAttach: true }), NOW, LEASE));
    expect(Object.keys(next.operations).sort()).toEqual(['node:a', 'node:c']);
  });

  it('adopts the access modes given while no operation is recorded', () => {
    const next = accepted(beginOperation(vol(), begin('attach', 'a', { accessModes: ['ReadWriteMany'], multiAttach: true }), NOW, LEASE));
    expect(next).toMatchObject({ accessModes: ['ReadWriteMany'], multiAttach: true, operations: { 'node:a': { id: 'op-attach-a' } } });
  });

  it('keeps the access modes while operations hold lock keys derived from them', () => {
    const record = vol({ multiAttach: true, attachments: [att('b', 'attaching')], operations: [op('x', 'attach', 'b')] });
    const next = accepted(beginOperation(record, begin('attach', 'a', { multiAttach: false }), NOW, LEASE));
    expect(next.multiAttach).toBe(true);
  });

  it('a detach marks the attachment detaching and targets the attached instance', () => {
    const record = vol({ attachments: [att('a', 'attached', { instanceId: 'i-old' })], backoff: { 'attach:a': failed(1) } });
    const next = accepted(beginOperation(record, begin('detach', 'a', { ec2Force: true }), NOW, LEASE));
    expect(next.attachments.a).toMatchObject({ state: 'detaching', since: NOW, instanceId: 'i-old' });
    expect(next.operations.volume).toEqual({
      id: 'op-detach-a',
      kind: 'detach',
      nodeName: 'a',
      instanceId: 'i-old',
      device: '/dev/xvdaa',
      ec2Force: true,
      startedAt: NOW,
      leaseExpiresAt: NOW + LEASE,
      prior: { state: 'attached', device: '/dev/xvdaa' },
    });
  });

  it('is allowed again once the backoff has passed', () => {
    expect(refusal(beginOperation(vol({ backoff: { 'attach:a': failed(1) } }), begin('attach', 'a'), NOW + 1, LEASE))).toBe('accepted');
  });
});

describe('completing an operation', () => {
  const attaching = vol({
    attachments: [att('a', 'attaching', { reported: true })],
    operations: [op('x', 'attach', 'a')],
    backoff: { 'attach:a': failed(2), 'detach:b': failed(1) },
  });
  const detaching = vol({ attachments: [att('a', 'detaching')], operations: [op('y', 'detach', 'a')], backoff: { 'detach:a': failed(1) } });

  it("completeAttach marks attached on the device, releases the lock and resets that key's backoff", () => {
    const next = accepted(completeAttach(attaching, 'x', '/dev/xvdba', NOW));
    expect(next.attachments.a).toEqual(att('a', 'attached', { device: '/dev/xvdba', reported: true, since: NOW }));
    expect(next.operations).toEqual({});
    expect(next.backoff).toEqual({ 'detach:b': failed(1) });
  });

  it('completeAttach recreates an attachment a verification removed meanwhile', () => {
    const next = accepted(completeAttach(vol({ operations: [op('x', 'attach', 'a')] }), 'x', '/dev/xvdba', NOW));
    expect(next.attachments.a).toEqual(att('a', 'attached', { device: '/dev/xvdba', since: NOW }));
  });

  it('completeDetach removes the attachment with the lock and the backoff', () => {
    expect(accepted(completeDetach(detaching, 'y', NOW))).toMatchObject({ attachments: {}, operations: {}, backoff: {} });
  });

  it.each<[string, () => Transition, string]>([
    ['completeAttach by a holder that was taken over', () => completeAttach(attaching, 'stale', '/dev/xvdba', NOW), 'not-holder'],
    ['completeAttach of a detach', () => completeAttach(detaching, 'y', '/dev/xvdba', NOW), 'wrong-kind'],
    ['completeDetach by a holder that was taken over', () => completeDetach(detaching, 'stale', NOW), 'not-holder'],
    ['completeDetach of an attach', () => completeDetach(attaching, 'x', NOW), 'wrong-kind'],
  ])('refuses %s', (_name, result, expected) => {
    expect(refusal(result())).toBe(expected);
  });
});

describe('failOperation', () => {
  const fail = (record: VolumeRecord, id: string, options?: { ec2MayStillBeWorking?: boolean }) =>
    accepted(failOperation(record, id, 'AttachmentLimitExceeded', NOW, DEFAULT_BACKOFF, options));

  it.each<[string, VolumeRecord, string, { ec2MayStillBeWorking?: boolean } | undefined, ActualAttachment | undefined]>([
    [
      'a fresh attach that EC2 refused disappears',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a')] }),
      'x',
      undefined,
      undefined,
    ],
    [
      'a re-attach that EC2 refused restores the uncertain entry',
      vol({
        attachments: [att('a', 'attaching', { device: '/dev/xvdab' })],
        operations: [op('x', 'attach', 'a', { prior: { state: 'uncertain', device: '/dev/xvdac' } })],
      }),
      'x',
      undefined,
      att('a', 'uncertain', { device: '/dev/xvdac', since: NOW }),
    ],
    [
      'a prior without device restores no device',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a', { prior: { state: 'uncertain' } })] }),
      'x',
      undefined,
      att('a', 'uncertain', { device: undefined, since: NOW }),
    ],
    [
      'an attach EC2 may still perform becomes uncertain on the reserved device',
      vol({ attachments: [att('a', 'attaching', { device: undefined })], operations: [op('x', 'attach', 'a', { device: '/dev/xvdab' })] }),
      'x',
      { ec2MayStillBeWorking: true },
      att('a', 'uncertain', { device: '/dev/xvdab', since: NOW }),
    ],
    [
      'an uncertain outcome keeps a known device',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a', { device: '/dev/xvdab' })] }),
      'x',
      { ec2MayStillBeWorking: true },
      att('a', 'uncertain', { since: NOW }),
    ],
    [
      'a detach that EC2 refused leaves the volume attached',
      vol({
        attachments: [att('a', 'detaching')],
        operations: [op('y', 'detach', 'a', { prior: { state: 'attached', device: '/dev/xvdaa' } })],
      }),
      'y',
      undefined,
      att('a', 'attached', { since: NOW }),
    ],
    ['an attachment already gone stays gone', vol({ operations: [op('x', 'attach', 'a')] }), 'x', undefined, undefined],
    [
      'an attachment already gone stays gone, even when EC2 may still be working',
      vol({ operations: [op('x', 'attach', 'a', { device: '/dev/xvdab' })] }),
      'x',
      { ec2MayStillBeWorking: true },
      undefined,
    ],
  ])('%s', (_name, record, id, options, expected) => {
    const next = fail(record, id, options);
    expect(next.attachments.a).toEqual(expected);
    expect(next.operations).toEqual({});
  });

  it('records the failure in the backoff of the operation key, doubling each time', () => {
    const record = vol({
      attachments: [att('a', 'attaching')],
      operations: [op('x', 'attach', 'a')],
      backoff: { 'attach:a': { failures: 2, notBefore: 0, lastError: 'old' } },
    });
    expect(fail(record, 'x').backoff['attach:a']).toEqual({ failures: 3, notBefore: NOW + 2_000, lastError: 'AttachmentLimitExceeded' });
  });

  it('refuses a holder that was taken over', () => {
    expect(refusal(failOperation(vol(), 'x', 'e', NOW, DEFAULT_BACKOFF))).toBe('not-holder');
  });
});

describe('leaving, taking over and resolving operations', () => {
  const inFlight = vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a')] });
  const expired = vol({
    attachments: [att('a', 'attaching')],
    operations: [op('x', 'attach', 'a', { leaseExpiresAt: NOW, prior: { state: 'uncertain' } })],
  });

  it('leaveInProgress keeps the intent untouched without a time', () => {
    expect(accepted(leaveInProgress(inFlight, 'x'))).toBe(inFlight);
  });

  it('leaveInProgress with a time ends the lease so the next pass resolves it', () => {
    expect(accepted(leaveInProgress(inFlight, 'x', NOW)).operations.volume?.leaseExpiresAt).toBe(NOW);
    expect(accepted(leaveInProgress(expired, 'x', NOW + 1))).toBe(expired);
    expect(refusal(leaveInProgress(inFlight, 'other', NOW))).toBe('not-holder');
  });

  it('takeOver moves an expired operation to a new holder with a fresh lease', () => {
    const next = accepted(takeOver(expired, 'x', 'z', NOW, LEASE));
    expect(next.operations.volume).toEqual({
      ...op('z', 'attach', 'a', { startedAt: NOW, leaseExpiresAt: NOW + LEASE }),
      prior: { state: 'uncertain' },
    });
    expect(next.attachments).toEqual(expired.attachments);
  });

  it.each<[string, () => Transition, string]>([
    ['takeOver of a live lease', () => takeOver(inFlight, 'x', 'z', NOW, LEASE), 'lease-live'],
    ['takeOver of an unknown operation', () => takeOver(expired, 'nope', 'z', NOW, LEASE), 'not-holder'],
    ['resolveExpired of a live lease', () => resolveExpired(inFlight, 'x', undefined, NOW, DEFAULT_BACKOFF), 'lease-live'],
    ['resolveExpired of an unknown operation', () => resolveExpired(expired, 'nope', undefined, NOW, DEFAULT_BACKOFF), 'not-holder'],
    [
      "resolveExpired with another instance's view",
      () => resolveExpired(expired, 'x', { instanceId: 'i-b', state: 'attached', device: '/dev/xvdaa' }, NOW, DEFAULT_BACKOFF),
      'wrong-target',
    ],
  ])('refuses %s', (_name, result, expected) => {
    expect(refusal(result())).toBe(expected);
  });

  const view = (state: Ec2Attachment['state']): Ec2Attachment => ({ instanceId: 'i-a', state, device: '/dev/xvdbb' });
  const expiredOp = (kind: 'attach' | 'detach', state: AttachmentState) =>
    vol({
      attachments: [att('a', state)],
      operations: [op('x', kind, 'a', { leaseExpiresAt: NOW })],
      backoff: { [`${kind}:a`]: failed(1) },
    });

  it.each<[string, VolumeRecord, Ec2Attachment | undefined, ActualAttachment | undefined, boolean]>([
    ['an attach EC2 never saw is dropped', expiredOp('attach', 'attaching'), undefined, undefined, true],
    ['an attach EC2 reports detached is dropped', expiredOp('attach', 'attaching'), view('detached'), undefined, true],
    [
      'an attach EC2 finished is attached, backoff reset',
      expiredOp('attach', 'attaching'),
      view('attached'),
      att('a', 'attached', { device: '/dev/xvdbb', since: NOW }),
      false,
    ],
    [
      'an attach EC2 still performs stays attaching since it began',
      expiredOp('attach', 'attaching'),
      view('attaching'),
      att('a', 'attaching', { device: '/dev/xvdbb' }),
      true,
    ],
    [
      'an attach EC2 is undoing is detaching',
      expiredOp('attach', 'attaching'),
      view('busy'),
      att('a', 'detaching', { device: '/dev/xvdbb', since: NOW }),
      true,
    ],
    ['a detach EC2 finished removes the attachment, backoff reset', expiredOp('detach', 'detaching'), undefined, undefined, false],
    [
      'a detach EC2 still shows attached stays uncertain (the read may predate the DetachVolume)',
      expiredOp('detach', 'detaching'),
      view('attached'),
      att('a', 'uncertain', { since: NOW }),
      true,
    ],
    [
      'a detach EC2 still performs stays detaching since it began',
      expiredOp('detach', 'detaching'),
      view('detaching'),
      att('a', 'detaching', { device: '/dev/xvdbb' }),
      true,
    ],
    [
      'an attachment verification removed comes back from EC2',
      vol({ operations: [op('x', 'attach', 'a', { leaseExpiresAt: NOW })] }),
      view('attached'),
      att('a', 'attached', { device: '/dev/xvdbb', since: NOW }),
      false,
    ],
  ])('resolveExpired: %s', (_name, record, ec2View, expected, backoffKept) => {
    const next = accepted(resolveExpired(record, 'x', ec2View, NOW, DEFAULT_BACKOFF));
    expect(next.attachments.a).toEqual(expected);
    expect(next.operations).toEqual({});
    expect(Object.keys(next.backoff).length > 0).toBe(backoffKept);
  });
});

describe('attachment facts', () => {
  const record = vol({ attachments: [att('a', 'attached', { detachRequestedAt: 5 }), att('b'), att('c', 'attached', { reported: true })] });
  const { detachRequestedAt: _dropped, ...aWithoutRequest } = att('a');

  it.each<[string, (r: VolumeRecord) => Transition, ActualAttachment | 'same']>([
    ['markReported sets the flag', (r) => markReported(r, 'b', true, 'p1'), att('b', 'attached', { reported: true })],
    ['markReported with the same value changes nothing', (r) => markReported(r, 'a', false, 'p1'), 'same'],
    ['markUnreported clears the flag', (r) => markUnreported(r, 'c'), att('c', 'attached', { reported: false })],
    ['markUnreported of an unlisted volume changes nothing', (r) => markUnreported(r, 'a'), 'same'],
    ['setMounted sets the flag', (r) => setMounted(r, 'b', true), att('b', 'attached', { mounted: true })],
    ['setMounted with the same value changes nothing', (r) => setMounted(r, 'a', false), 'same'],
    ['requestDetach sets the time once', (r) => requestDetach(r, 'b', NOW), att('b', 'attached', { detachRequestedAt: NOW })],
    ['requestDetach keeps the first request time', (r) => requestDetach(r, 'a', NOW), 'same'],
    ['clearDetachRequest drops the time', (r) => clearDetachRequest(r, 'a'), aWithoutRequest],
    ['clearDetachRequest without a request changes nothing', (r) => clearDetachRequest(r, 'b'), 'same'],
  ])('%s', (_name, change, expected) => {
    const next = accepted(change(record));
    if (expected === 'same') return expect(next).toBe(record);
    expect(next.attachments[expected.nodeName]).toStrictEqual(expected);
  });

  it('refuses a node without attachment', () => {
    expect(refusal(markReported(record, 'z', true, 'p1'))).toBe('no-attachment');
  });
});

describe('applyObservation (verification against EC2)', () => {
  const ec2 = (...attachments: Ec2Attachment[]) => ({ volumeId: VOL, exists: true, attachments });
  const on = (node: string, state: Ec2Attachment['state'], device = '/dev/xvdaa'): Ec2Attachment => ({
    instanceId: iid(node),
    state,
    device,
  });
  const nodes = new Map([
    ['i-a', 'a'],
    ['i-b', 'b'],
  ]);
  const apply = (record: VolumeRecord, observation: ReturnType<typeof ec2>) => accepted(applyObservation(record, observation, NOW, nodes));

  it.each<[string, VolumeRecord, ReturnType<typeof ec2>, Record<string, ActualAttachment>]>([
    ['an attachment EC2 no longer has is removed', vol({ attachments: [att('a')] }), ec2(), {}],
    ['an attachment EC2 lists as detached is removed', vol({ attachments: [att('a')] }), ec2(on('a', 'detached')), {}],
    [
      'every attachment of a deleted volume is removed',
      vol({ multiAttach: true, attachments: [att('a'), att('b')] }),
      { ...ec2(on('a', 'attached')), exists: false },
      {},
    ],
    [
      'an uncertain entry EC2 confirms becomes attached',
      vol({ attachments: [att('a', 'uncertain')] }),
      ec2(on('a', 'attached')),
      { a: att('a', 'attached', { since: NOW }) },
    ],
    [
      'a lost detach EC2 still shows attached stays uncertain (the read may predate the DetachVolume)',
      vol({ attachments: [att('a', 'uncertain')], backoff: { 'detach:a': failed(1) } }),
      ec2(on('a', 'attached')),
      { a: att('a', 'uncertain') },
    ],
    [
      'a lost detach EC2 shows detaching follows EC2',
      vol({ attachments: [att('a', 'uncertain')], backoff: { 'detach:a': failed(1) } }),
      ec2(on('a', 'detaching')),
      { a: att('a', 'detaching', { since: NOW }) },
    ],
    [
      'a device EC2 reports differently is corrected, since kept',
      vol({ attachments: [att('a')] }),
      ec2(on('a', 'attached', '/dev/xvdbb')),
      { a: att('a', 'attached', { device: '/dev/xvdbb' }) },
    ],
    ['a busy detach is detaching', vol({ attachments: [att('a')] }), ec2(on('a', 'busy')), { a: att('a', 'detaching', { since: NOW }) }],
    [
      'an unknown attachment on a known node is added as attached',
      vol(),
      ec2(on('b', 'attached')),
      { b: att('b', 'attached', { since: NOW }) },
    ],
    [
      'an unknown attachment still in motion is added as uncertain',
      vol(),
      ec2(on('b', 'attaching')),
      { b: att('b', 'uncertain', { since: NOW }) },
    ],
    ['an attachment on an instance of no known node is left out', vol(), ec2(on('z', 'attached')), {}],
    [
      'a node that moved to a new instance follows EC2',
      vol({ attachments: [att('a', 'attached', { instanceId: 'i-old' })] }),
      ec2(on('a', 'attached')),
      { a: att('a', 'attached', { since: NOW }) },
    ],
    [
      'a key with a live operation is left to that operation',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a')] }),
      ec2(on('b', 'attached')),
      { a: att('a', 'attaching') },
    ],
    [
      'a key whose operation expired is corrected',
      vol({ attachments: [att('a', 'attaching')], operations: [op('x', 'attach', 'a', { leaseExpiresAt: NOW })] }),
      ec2(on('a', 'attached')),
      { a: att('a', 'attached', { since: NOW }) },
    ],
  ])('%s', (_name, record, observation, expected) => {
    expect(apply(record, observation).attachments).toEqual(expected);
  });

  it('returns the same record when EC2 agrees', () => {
    const record = vol({ attachments: [att('a')] });
    expect(apply(record, ec2(on('a', 'attached')))).toBe(record);
    expect(accepted(applyObservation(record, ec2(on('a', 'attached')), NOW))).toBe(record);
  });

  it('refuses an observation of another volume', () => {
    expect(refusal(applyObservation(vol(), { ...ec2(), volumeId: 'vol-other' }, NOW))).toBe('wrong-target');
  });
});

describe('seeding, expiry and emptiness', () => {
  it('seedUncertain creates a volume with an uncertain, reported entry', () => {
    const next = accepted(
      seedUncertain(undefined, { volumeId: VOL, nodeName: 'a', instanceId: 'i-a', device: '/dev/xvdaa', reported: true }, NOW),
    );
    expect(next).toEqual({ ...vol({ attachments: [att('a', 'uncertain', { reported: true, since: NOW })] }), accessModes: [], version: 0 });
  });

  it('seedUncertain adds to an existing volume and never overrides what is known', () => {
    const record = vol({ attachments: [att('a')] });
    expect(accepted(seedUncertain(record, { volumeId: VOL, nodeName: 'a', instanceId: 'i-a' }, NOW))).toBe(record);
    const next = accepted(seedUncertain(record, { volumeId: VOL, nodeName: 'b', instanceId: 'i-b', uniqueName: 'ignored' }, NOW));
    expect(next.attachments.b).toEqual({
      nodeName: 'b',
      instanceId: 'i-b',
      state: 'uncertain',
      mounted: false,
      reported: false,
      since: NOW,
    });
    expect(next.uniqueName).toBe(record.uniqueName);
  });

  it('expiredOperations lists the operations whose lease ran out', () => {
    const record = vol({ multiAttach: true, operations: [op('x', 'attach', 'a', { leaseExpiresAt: NOW }), op('y', 'attach', 'b')] });
    expect(expiredOperations(record, NOW).map((o) => o.id)).toEqual(['x']);
  });

  it.each<[string, VolumeRecord, number | undefined, boolean]>([
    ['a record with nothing is empty', vol(), undefined, true],
    ['an attachment keeps it', vol({ attachments: [att('a')] }), NOW, false],
    ['an operation keeps it', vol({ operations: [op('x', 'attach', 'a')] }), NOW, false],
    ['a backoff in force keeps it', vol({ backoff: { 'attach:a': failed(1) } }), NOW, false],
    ['a backoff that has passed does not', vol({ backoff: { 'attach:a': failed(1) } }), NOW + 1, true],
    ['without a time any backoff keeps it', vol({ backoff: { 'attach:a': failed(1) } }), undefined, false],
  ])('isEmpty: %s', (_name, record, now, expected) => {
    expect(isEmpty(record, now)).toBe(expected);
  });
});

// Invariant 5: a pass adds a volume to a node's list only under a claim no detach can overlap.
describe('listing claims', () => {
  const UNTIL = NOW + 30_000;
  const claimed = (by = 'p1', record = vol({ attachments: [att('a')] })) => accepted(claimListing(record, 'a', by, UNTIL, NOW));

  it.each<[string, VolumeRecord, string]>([
    ['an attached volume without an operation', vol({ attachments: [att('a')] }), 'accepted'],
    ['a volume a detach holds', vol({ attachments: [att('a', 'detaching')], operations: [op('d', 'detach', 'a')] }), 'locked'],
    ['a volume still attaching', vol({ attachments: [att('a', 'attaching')] }), 'no-attachment'],
    ['a volume not attached on the node', vol({ attachments: [att('b')] }), 'no-attachment'],
  ])('claimListing on %s: %s', (_name, record, expected) => {
    expect(refusal(claimListing(record, 'a', 'p1', UNTIL, NOW))).toBe(expected);
  });

  // A pass that died between its claim and its write never ends its claim; the next claim clears it.
  it("a new claim drops other passes' lapsed claims and keeps those that still last", () => {
    const lapsedAndLive = accepted(claimListing(claimed('p2', claimed('p1')), 'a', 'p3', UNTIL + 5, UNTIL - 1));
    expect(lapsedAndLive.attachments.a?.listingClaims).toEqual({ p1: UNTIL, p2: UNTIL, p3: UNTIL + 5 });
    const afterLapse = accepted(claimListing(claimed('p2', claimed('p1')), 'a', 'p3', UNTIL + 30_000, UNTIL));
    expect(afterLapse.attachments.a?.listingClaims).toEqual({ p3: UNTIL + 30_000 });
  });

  it.each<[string, number, string]>([
    ['refuses a detach while the claim lasts', UNTIL - 1, 'listing'],
    ['lets a detach begin once the claim has lapsed', UNTIL, 'accepted'],
  ])('%s', (_name, now, expected) => {
    expect(refusal(beginOperation(claimed(), begin('detach', 'a'), now, LEASE))).toBe(expected);
  });

  it('a detach that begins drops the lapsed claims', () => {
    expect(accepted(beginOperation(claimed(), begin('detach', 'a'), UNTIL, LEASE)).attachments.a?.listingClaims).toBeUndefined();
  });

  it("ends with the lister's markReported (it wrote the list), listed or not", () => {
    for (const listed of [true, false])
      expect(accepted(markReported(claimed(), 'a', listed, 'p1')).attachments.a?.listingClaims).toBeUndefined();
  });

  // Two passes claimed; the first one's write must leave the second's claim (its write may still land).
  it("another lister's markReported leaves the claim: a detach still waits", () => {
    const both = claimed('p2', claimed('p1'));
    const firstWrote = accepted(markReported(both, 'a', true, 'p1'));
    expect(firstWrote.attachments.a).toMatchObject({ reported: true, listingClaims: { p2: UNTIL } });
    expect(refusal(beginOperation(firstWrote, begin('detach', 'a'), UNTIL - 1, LEASE))).toBe('listing');
  });

  // Fault seed 332: the lister's write was still to land when another pass's unreport ended its claim.
  it('outlives an unreport by another pass: the lister has yet to write, so a detach still waits', () => {
    const unreported = accepted(markUnreported(claimed('p1', vol({ attachments: [att('a', 'attached', { reported: true })] })), 'a'));
    expect(unreported.attachments.a).toMatchObject({ reported: false, listingClaims: { p1: UNTIL } });
    expect(refusal(beginOperation(unreported, begin('detach', 'a'), UNTIL - 1, LEASE))).toBe('listing');
  });
});

describe('abandonOperation (nothing was sent to EC2)', () => {
  it('restores the attachment as it was, with no backoff', () => {
    const started = accepted(beginOperation(vol({ attachments: [att('a')] }), begin('detach', 'a'), NOW, LEASE));
    const next = accepted(abandonOperation(started, 'op-detach-a', NOW + 5));
    expect(next.operations).toEqual({});
    expect(next.backoff).toEqual({});
    expect(next.attachments.a).toEqual({ ...att('a'), since: NOW + 5 });
  });

  it('refuses an operation it does not hold', () => {
    expect(refusal(abandonOperation(vol({ attachments: [att('a')] }), 'op-other', NOW))).toBe('not-holder');
  });
});
