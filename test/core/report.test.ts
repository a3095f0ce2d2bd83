import { describe, expect, it } from 'vitest';
import { nodeReports } from '../../lambda/core/report.js';
import { actualOf, attachment, desired, record, uname, view, vol } from './builders.js';

const entry = (n: number, devicePath = '/dev/xvdaa') => ({ name: uname(vol(n)), devicePath });

describe('nodeReports: what each node reports as attached (invariant 5)', () => {
  it("lists exactly the attached volumes of the node's instance, sorted by name", () => {
    const actual = actualOf(
      record(vol(2), [attachment('node-a', { device: '/dev/xvdab' })]),
      record(vol(1), [attachment('node-a', { device: '/dev/xvdaa' }), attachment('node-b')]),
      record(vol(3), [attachment('node-a', { state: 'attaching' })]),
      record(vol(4), [attachment('node-a', { state: 'detaching' })]),
      record(vol(5), [attachment('node-a', { state: 'uncertain' })]),
      record(vol(6), [attachment('node-a', { instanceId: 'i-0000000000000dead' })]),
    );
    const reports = nodeReports(desired([], [view('node-a'), view('node-b', { attached: [entry(1)] })]), actual);
    expect(reports.get('node-a')).toEqual({ want: [entry(1), entry(2, '/dev/xvdab')], changed: true });
    expect(reports.get('node-b')).toEqual({ want: [entry(1)], changed: false });
  });

  it.each([
    ['a node reporting the same list in another order is unchanged', [entry(2), entry(1)], false],
    ['a node reporting a volume that is no longer attached changes', [entry(1), entry(2), entry(3)], true],
    ['a node reporting another device path changes', [entry(1), entry(2, '/dev/xvdzz')], true],
    ['a node reporting nothing changes', [], true],
  ])('%s', (_name, reported, changed) => {
    const actual = actualOf(record(vol(1), [attachment('node-a')]), record(vol(2), [attachment('node-a')]));
    expect(nodeReports(desired([], [view('node-a', { attached: reported })]), actual).get('node-a')?.changed).toBe(changed);
  });

  it('an attached entry without a known device reports an empty devicePath', () => {
    const a = { ...attachment('node-a'), device: undefined };
    expect(nodeReports(desired([], [view('node-a')]), actualOf(record(vol(1), [a]))).get('node-a')?.want).toEqual([
      { name: uname(vol(1)), devicePath: '' },
    ]);
  });

  it('a node without a readable instance id still reports its attached volumes', () => {
    expect(
      nodeReports(desired([], [view('node-a', { instanceId: null })]), actualOf(record(vol(1), [attachment('node-a')]))).get('node-a')
        ?.want,
    ).toEqual([entry(1)]);
  });

  it('unmanaged nodes are not ours to report', () => {
    expect(nodeReports(desired([], [view('node-a', { managed: false, attached: [entry(9)] })]), new Map()).has('node-a')).toBe(false);
  });

  it('a full pass removes entries of volumes it has no record of', () => {
    expect(nodeReports(desired([], [view('node-a', { attached: [entry(9)] })]), new Map()).get('node-a')).toEqual({
      want: [],
      changed: true,
    });
  });

  it('a targeted pass keeps entries of volumes it did not load, and decides those it did', () => {
    const scope = { volumes: [vol(1), vol(2)], nodes: ['node-a'] };
    const actual = actualOf(record(vol(1), [attachment('node-a')]), record(vol(2), [attachment('node-a', { state: 'detaching' })]));
    const reports = nodeReports(desired([], [view('node-a', { attached: [entry(9), entry(2)] })], { scope }), actual);
    expect(reports.get('node-a')).toEqual({ want: [entry(1), entry(9)], changed: true });
  });
});
