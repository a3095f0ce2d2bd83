import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeNode, KubeTaint } from '../../lambda/core/kube.js';
import {
  decideOutOfService,
  OUR_TAINT,
  taintEditOf,
  TAINTED_BY_US_ANNOTATION,
  type TaintDecision,
} from '../../lambda/core/out-of-service.js';
import type { InstanceState } from '../../lambda/core/types.js';
import { instanceOf, node } from './builders.js';

const theirs: KubeTaint = { key: 'node.kubernetes.io/out-of-service', value: 'manual', effect: 'NoExecute' };
const other: KubeTaint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };

/** A node with the given taints, marked as tainted by us when `ours`. */
function tainted(taints: KubeTaint[], ours = false): KubeNode {
  const base = node('node-a');
  const annotations = { ...base.metadata.annotations, ...(ours ? { [TAINTED_BY_US_ANNOTATION]: instanceOf('node-a') } : {}) };
  return { ...base, metadata: { ...base.metadata, annotations }, spec: { ...base.spec, taints } };
}

type State = InstanceState | 'missing' | undefined;

describe('out-of-service taint: what EC2 says of the instance decides', () => {
  it.each<[string, KubeNode, State, boolean, TaintDecision['kind']]>([
    ['a terminated instance taints its node', tainted([]), 'terminated', true, 'taint'],
    ['a stopped instance taints its node', tainted([other]), 'stopped', true, 'taint'],
    ['stopping alone changes nothing: re-checked when EC2 reports stopped', tainted([]), 'stopping', true, 'recheck'],
    ['shutting-down alone changes nothing: re-checked when EC2 reports terminated', tainted([]), 'shutting-down', true, 'recheck'],
    ['a running instance never taints its node', tainted([]), 'running', true, 'none'],
    ['EC2 not asked: nothing is decided', tainted([]), undefined, true, 'none'],
    ['an instance EC2 no longer knows: left to the cloud controller', tainted([]), 'missing', true, 'none'],
    ['setting off: never taints', tainted([]), 'terminated', false, 'none'],
    ["someone else's taint is enough: nothing added", tainted([theirs]), 'terminated', true, 'none'],
    ['already tainted by us: nothing added', tainted([OUR_TAINT], true), 'stopped', true, 'none'],
    ['our taint goes when the instance runs again', tainted([OUR_TAINT], true), 'running', true, 'untaint'],
    [
      'our taint goes when the instance is pending (starting) again, also with the setting off',
      tainted([OUR_TAINT], true),
      'pending',
      false,
      'untaint',
    ],
    ["someone else's taint stays when the instance runs again", tainted([theirs]), 'running', true, 'none'],
    ['our taint stays while the instance is stopping again', tainted([OUR_TAINT], true), 'stopping', true, 'recheck'],
    ['a node naming no instance is left alone', { ...tainted([]), spec: { taints: [] } }, 'terminated', true, 'none'],
  ])('%s', (_name, subject, instanceState, enabled, kind) => {
    expect(decideOutOfService({ node: subject, instanceState, enabled }).kind).toBe(kind);
  });

  it('the edit adds the documented taint (nodeshutdown:NoExecute) and marks it with the instance', () => {
    const subject = tainted([other]);
    expect(taintEditOf(subject, { kind: 'taint', why: '' })).toEqual({
      taints: [other, { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }],
      mark: instanceOf('node-a'),
    });
  });

  it('removing ours drops only our exact taint and the mark: a same-key taint someone put in its place stays', () => {
    expect(taintEditOf(tainted([other, OUR_TAINT], true), { kind: 'untaint', why: '' })).toEqual({ taints: [other], mark: null });
    expect(taintEditOf(tainted([theirs], true), { kind: 'untaint', why: '' })).toEqual({ taints: [theirs], mark: null });
  });

  it('recheck and none change nothing', () => {
    expect(taintEditOf(tainted([]), { kind: 'recheck', why: '' })).toBeUndefined();
    expect(taintEditOf(tainted([]), { kind: 'none', why: '' })).toBeUndefined();
  });
});

describe('out-of-service taint: properties', () => {
  const states = fc.constantFrom<State>(undefined, 'missing', 'pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated');
  const taint = fc.oneof(fc.constant(OUR_TAINT), fc.constant(theirs), fc.constant(other));
  const nodes = fc
    .record({ taints: fc.array(taint, { maxLength: 3 }), ours: fc.boolean() })
    .map(({ taints, ours }) => tainted(taints, ours));

  it('never taints a node whose instance EC2 shows running (or pending)', () => {
    fc.assert(
      fc.property(nodes, fc.constantFrom<State>('running', 'pending'), fc.boolean(), (subject, instanceState, enabled) => {
        const edit = taintEditOf(subject, decideOutOfService({ node: subject, instanceState, enabled }));
        const count = (taints: KubeTaint[]) => taints.filter((t) => t.key === OUR_TAINT.key).length;
        return edit === undefined || count(edit.taints) <= count(subject.spec?.taints ?? []);
      }),
    );
  });

  it('never removes a taint we did not place', () => {
    fc.assert(
      fc.property(nodes, states, fc.boolean(), (subject, instanceState, enabled) => {
        const edit = taintEditOf(subject, decideOutOfService({ node: subject, instanceState, enabled }));
        if (edit === undefined) return true;
        const before = subject.spec?.taints ?? [];
        const removed = before.filter((t) => !edit.taints.includes(t));
        const ours = subject.metadata.annotations?.[TAINTED_BY_US_ANNOTATION] !== undefined;
        return removed.every((t) => ours && t.key === OUR_TAINT.key && t.value === OUR_TAINT.value && t.effect === OUR_TAINT.effect);
      }),
    );
  });

  it('with the setting off, never adds a taint', () => {
    fc.assert(
      fc.property(nodes, states, (subject, instanceState) => {
        const edit = taintEditOf(subject, decideOutOfService({ node: subject, instanceState, enabled: false }));
        return edit === undefined || edit.taints.length <= (subject.spec?.taints ?? []).length;
      }),
    );
  });
});
