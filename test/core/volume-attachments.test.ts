import { describe, expect, it } from 'vitest';
import { type ActualState, type DesiredState, pairKey, type VolumeObservation } from '../../lambda/core/types.js';
import {
  indexVolumeAttachments,
  volumeAttachmentChange,
  volumeAttachmentChanges,
  type VolumeAttachmentStatusView,
} from '../../lambda/core/volume-attachments.js';
import { actualOf, attachment, desired, op, pv, record, va, view, vol, want } from './builders.js';

const V = vol(1);
const W = vol(2);
const nodes = [view('node-a'), view('node-b')];
const attachedOnA = actualOf(record(V, [attachment('node-a', { device: '/dev/xvdaa' })]));
const nothing: ActualState = new Map();

describe('volumeAttachmentChange: one (volume, node) right after its attachment changed', () => {
  it.each<[string, DesiredState, ActualState, boolean, object | undefined]>([
    [
      'attached with a device: report it attached',
      desired([], nodes),
      attachedOnA,
      false,
      { volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' },
    ],
    [
      'no attachment and not wanted: delete the object',
      desired([], nodes),
      nothing,
      false,
      { volumeId: V, nodeName: 'node-a', change: 'delete' },
    ],
    ['no attachment but still wanted: the object keeps its attachError', desired([want(V, 'node-a')], nodes), nothing, false, undefined],
    [
      'no attachment, still wanted, object says attached: never keep claiming it',
      desired([want(V, 'node-a')], nodes),
      nothing,
      true,
      { volumeId: V, nodeName: 'node-a', change: 'report-not-attached' },
    ],
    [
      'attaching: left until EC2 settles it',
      desired([], nodes),
      actualOf(record(V, [attachment('node-a', { state: 'attaching' })])),
      true,
      undefined,
    ],
    [
      'detaching: left until EC2 settles it',
      desired([], nodes),
      actualOf(record(V, [attachment('node-a', { state: 'detaching' })])),
      true,
      undefined,
    ],
    [
      'uncertain: left until EC2 settles it',
      desired([], nodes),
      actualOf(record(V, [attachment('node-a', { state: 'uncertain' })])),
      false,
      undefined,
    ],
    [
      'attached without a known device: nothing the node plugin could use',
      desired([], nodes),
      actualOf(record(V, [{ ...attachment('node-a'), device: undefined }])),
      false,
      undefined,
    ],
    [
      'a targeted pass leaves volumes it did not load alone',
      desired([], nodes, { scope: { volumes: [W], nodes: ['node-a'] } }),
      nothing,
      false,
      undefined,
    ],
    [
      'a targeted pass writes the volumes it loaded',
      desired([], nodes, { scope: { volumes: [V], nodes: [] } }),
      attachedOnA,
      false,
      { volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' },
    ],
  ])('%s', (_name, state, actual, claimsAttached, expected) => {
    expect(volumeAttachmentChange({ desired: state, actual }, V, 'node-a', claimsAttached)).toEqual(expected);
  });

  // The rule both modes share (reportable.ts): the record alone is not enough.
  it.each<[string, DesiredState, ActualState, VolumeObservation | undefined]>([
    ['EC2, asked this pass, shows it nowhere', desired([], nodes), attachedOnA, { volumeId: V, exists: true, attachments: [] }],
    [
      'the record holds it on a previous instance of the node',
      desired([], [view('node-a', { instanceId: 'i-0000000000000new' })]),
      attachedOnA,
      undefined,
    ],
    ['the node is gone: no instance to report it on', desired([], [view('node-b')]), attachedOnA, undefined],
  ])('attached on record, but %s: no report that it is attached', (_name, state, actual, observation) => {
    const observations = observation === undefined ? {} : { volumes: new Map([[V, observation]]) };
    expect(volumeAttachmentChange({ desired: state, actual, observations }, V, 'node-a')).toBeUndefined();
  });
});

describe('volumeAttachmentChanges: the end of a pass', () => {
  const listed = (...entries: [string, string, VolumeAttachmentStatusView][]) => new Map(entries.map(([v, n, s]) => [pairKey(v, n), s]));
  const attachedA: VolumeAttachmentStatusView = { attached: true, devicePath: '/dev/xvdaa' };

  it.each<
    [
      string,
      { state?: DesiredState; actual: ActualState; touched?: string[]; existing?: Map<string, VolumeAttachmentStatusView> },
      object[],
    ]
  >([
    ['a full listing that agrees: nothing to write', { actual: attachedOnA, existing: listed([V, 'node-a', attachedA]) }, []],
    [
      'a touched pair whose object already agrees (takeover): nothing to write',
      { actual: attachedOnA, touched: [pairKey(V, 'node-a')], existing: listed([V, 'node-a', attachedA]) },
      [],
    ],
    [
      'an attached volume without an object gets one',
      { actual: attachedOnA, existing: listed() },
      [{ volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' }],
    ],
    [
      'an object with another device is corrected',
      { actual: attachedOnA, existing: listed([V, 'node-a', { attached: true, devicePath: '/dev/xvdzz' }]) },
      [{ volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' }],
    ],
    [
      'an object not yet saying attached is set attached',
      { actual: attachedOnA, existing: listed([V, 'node-a', { attached: false }]) },
      [{ volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' }],
    ],
    [
      'an object of an attachment nobody has or wants is deleted',
      { actual: attachedOnA, existing: listed([V, 'node-a', attachedA], [V, 'node-b', attachedA]) },
      [{ volumeId: V, nodeName: 'node-b', change: 'delete' }],
    ],
    [
      'an object of a volume with no record is deleted',
      { actual: nothing, existing: listed([W, 'node-a', { attached: false }]) },
      [{ volumeId: W, nodeName: 'node-a', change: 'delete' }],
    ],
    [
      'an object whose pair has a live operation is left to that operation',
      {
        actual: actualOf(record(V, [], { operations: { volume: op('attach', 'node-b') } })),
        existing: listed([V, 'node-b', { attached: false }]),
      },
      [],
    ],
    [
      'a still-wanted pair whose object claims attached is set not attached',
      { state: desired([want(V, 'node-b')], nodes), actual: nothing, existing: listed([V, 'node-b', attachedA]) },
      [{ volumeId: V, nodeName: 'node-b', change: 'report-not-attached' }],
    ],
    [
      'a still-wanted pair whose object already says not attached keeps its attachError',
      { state: desired([want(V, 'node-b')], nodes), actual: nothing, existing: listed([V, 'node-b', { attached: false }]) },
      [],
    ],
    [
      'without a listing only touched pairs are looked at',
      { actual: actualOf(record(V, [attachment('node-a')]), record(W, [attachment('node-b')])), touched: [pairKey(W, 'node-b')] },
      [{ volumeId: W, nodeName: 'node-b', change: 'report-attached', devicePath: '/dev/xvdaa' }],
    ],
    [
      'without a listing a touched, vanished pair is deleted (nobody wants it)',
      { actual: nothing, touched: [pairKey(V, 'node-a')] },
      [{ volumeId: V, nodeName: 'node-a', change: 'delete' }],
    ],
    [
      'a targeted pass writes nothing for volumes it did not load',
      { state: desired([], nodes, { scope: { volumes: [W], nodes: [] } }), actual: nothing, touched: [pairKey(V, 'node-a')] },
      [],
    ],
    [
      'touched pairs come first, then attached ones, then stale objects',
      {
        actual: actualOf(record(V, [attachment('node-a')]), record(W, [attachment('node-b')])),
        touched: [pairKey(W, 'node-b')],
        existing: listed([V, 'node-b', { attached: false }]),
      },
      [
        { volumeId: W, nodeName: 'node-b', change: 'report-attached', devicePath: '/dev/xvdaa' },
        { volumeId: V, nodeName: 'node-a', change: 'report-attached', devicePath: '/dev/xvdaa' },
        { volumeId: V, nodeName: 'node-b', change: 'delete' },
      ],
    ],
  ])('%s', (_name, input, expected) => {
    const { state = desired([], nodes), actual, touched = [], existing } = input;
    expect(volumeAttachmentChanges({ desired: state, actual, touched, ...(existing === undefined ? {} : { existing }) })).toEqual(expected);
  });
});

describe('indexVolumeAttachments', () => {
  it('indexes EBS objects by the volume they name and the node, with what their status says', () => {
    const index = indexVolumeAttachments({
      pvs: [pv('pv-v', { volumeId: V })],
      volumeAttachments: [
        va('node-a', { pv: 'pv-v', attached: true, devicePath: '/dev/xvdaa' }),
        va('node-b', { inline: { volumeHandle: `aws://us-east-1a/${W}` }, attached: false }),
        va('node-c', { inline: { volumeHandle: W } }),
        va('node-d', { pv: 'pv-v', attacher: 'efs.csi.aws.com', attached: true }),
        va('node-e', { inline: { volumeHandle: 'vol-bogus' }, attached: true }),
        va('node-f', { pv: 'pv-gone', attached: true }),
      ],
    });
    expect(index).toEqual(
      new Map([
        [pairKey(V, 'node-a'), { attached: true, devicePath: '/dev/xvdaa' }],
        [pairKey(W, 'node-b'), { attached: false }],
        [pairKey(W, 'node-c'), { attached: false }],
      ]),
    );
  });
});
