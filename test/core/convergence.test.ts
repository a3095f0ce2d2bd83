/** When a pass has converged: every desired attachment attached to its node's instance and reported. */
import { describe, expect, it } from 'vitest';
import { notAttached } from '../../lambda/core/convergence.js';
import type { ActualAttachment } from '../../lambda/core/types.js';
import { actualOf, attachment, desired, record, view, vol, want } from './builders.js';

const V = vol(1);
const W = vol(2);

describe('what a pass has not yet done', () => {
  it.each<[string, ActualAttachment | undefined, string | undefined]>([
    ['no record of the pair: not attached', undefined, 'not attached'],
    [
      'attached to the instance the node had before: attached to a previous instance',
      attachment('node-a', { instanceId: 'i-0000000000000dead' }),
      'attached to a previous instance',
    ],
    ['still attaching: the record says so', attachment('node-a', { state: 'attaching' }), 'attaching'],
    ['uncertain: the record says so', attachment('node-a', { state: 'uncertain' }), 'uncertain'],
    ['attached, but the node does not list it yet', attachment('node-a', { reported: false }), 'attached, not reported'],
    ['attached and reported: done', attachment('node-a'), undefined],
  ])('%s', (_case, held, state) => {
    const actual = held === undefined ? actualOf() : actualOf(record(V, [held]));

    expect(notAttached(desired([want(V, 'node-a')], [view('node-a')]), actual)).toEqual(
      state === undefined ? [] : [{ volumeId: V, nodeName: 'node-a', state }],
    );
  });

  it("where kcm decides, the node's list is kcm's to write: attached is done, reported or not", () => {
    const kcmDecides = desired([want(V, 'node-a')], [view('node-a')], { decidedBy: { kind: 'kcm', released: new Set<string>() } });

    expect(notAttached(kcmDecides, actualOf(record(V, [attachment('node-a', { reported: false })])))).toEqual([]);
  });

  it('lists what is missing sorted by volume, then node', () => {
    const wanted = desired(
      [want(W, 'node-a'), want(V, 'node-b', { multiAttach: true }), want(V, 'node-a', { multiAttach: true })],
      [view('node-a'), view('node-b')],
    );

    expect(notAttached(wanted, actualOf()).map((m) => `${m.volumeId} ${m.nodeName}`)).toEqual([
      `${V} node-a`,
      `${V} node-b`,
      `${W} node-a`,
    ]);
  });
});
