/**
 * `explain` reaches every skip reason of the desired-state builder, every wait reason of the plan,
 * the mass-detach guard and every state of a chain, and ends each in one sentence.
 */
import { describe, expect, it } from 'vitest';
import { explain } from '../../lambda/cli/explain/explain.js';
import type { ChainCode, ExplainTarget, Explanation } from '../../lambda/cli/explain/types.js';
import { EXPLAINED_CODES } from '../../lambda/cli/explain/verdicts.js';
import { MASS_DETACH_GUARD, SKIP_CODES, WAIT_CODES } from '../../lambda/core/reasons.js';
import { attachment, instanceOf, node, op, pod, pvc, record, T0, vol } from '../core/builders.js';
import {
  HELD_BACK_WORLD,
  MULTI_ATTACH_WORLD,
  SKIP_SCENARIOS,
  V,
  WAIT_SCENARIOS,
  world,
  type ReasonWorld,
} from '../core/reason-scenarios.js';

const run = (target: ExplainTarget, w: ReasonWorld): Explanation =>
  explain(target, {
    snapshot: w.snapshot,
    complete: w.complete,
    actual: new Map(w.records.map((r) => [r.volumeId, r])),
    observations: w.observations,
    now: w.now,
    config: w.config,
  });

const WEB: ExplainTarget = { kind: 'pod', namespace: 'default', name: 'web' };
const VOLUME: ExplainTarget = { kind: 'volume', volumeId: V };

/** One sentence: a capital, no sentence break inside, a full stop at the end. */
const ONE_SENTENCE = /^[A-Z0-9][^\n]*\.$/;
const oneSentence = (text: string) => {
  expect(text).toMatch(ONE_SENTENCE);
  expect(text).not.toMatch(/[.;:]\s+[A-Z][a-z]+ (is|are|the|it)\b/);
};

describe('explain: every reason the builder skips a pod volume', () => {
  it.each(SKIP_SCENARIOS.map((s) => [s.code, s] as const))('%s', (code, scenario) => {
    const explained = run(WEB, scenario.world);
    expect(explained.chains.map((c) => c.code)).toEqual([code]);
    expect(explained.chains[0]!.steps.map((s) => s.kind)).toContain('desired');
    oneSentence(explained.verdict);
    expect(explained.attached).toBe(false);
  });
});

describe('explain: every reason the plan defers a (volume, node)', () => {
  // explain reads the cluster as controller mode does; attacher mode's worlds (kcm decides) are not its to explain.
  const controllerScenarios = WAIT_SCENARIOS.filter((s) => s.world.released === undefined);
  it.each(controllerScenarios.map((s) => [s.code, s] as const))('%s', (code, scenario) => {
    const explained = run(VOLUME, scenario.world);
    const chain = explained.chains.find((c) => c.nodeName === scenario.nodeName)!;
    expect(chain.code).toBe(code);
    expect(chain.steps.map((s) => s.kind)).toEqual(expect.arrayContaining(['record', 'ec2', 'volumeAttachment', 'node']));
    oneSentence(chain.sentence);
    oneSentence(explained.verdict);
  });

  it('the mass-detach guard', () => {
    const explained = run({ kind: 'volume', volumeId: vol(12) }, HELD_BACK_WORLD);
    expect(explained.chains.map((c) => c.code)).toEqual([MASS_DETACH_GUARD]);
    oneSentence(explained.verdict);
  });
});

/** Worlds for the states of a chain that are neither skips nor waits. */
const STATES: [ChainCode, ExplainTarget, ReasonWorld][] = [
  ['attached', WEB, world({ records: [record(V, [attachment('node-a')])] })],
  ['not-reported', WEB, world({ records: [record(V, [attachment('node-a', { reported: false })])] })],
  ['will-attach', WEB, world()],
  ['will-detach', VOLUME, world({ pods: [], records: [record(V, [attachment('node-b')])] })],
  [
    'will-resolve',
    VOLUME,
    world({ pods: [], records: [record(V, [], { operations: { volume: op('detach', 'node-b', { leaseExpiresAt: T0 - 1 }) } })] }),
  ],
  ['multi-attach', WEB, MULTI_ATTACH_WORLD],
  [
    'not-authorized',
    WEB,
    world({
      records: [
        record(V, [], {
          backoff: {
            'attach:node-a': {
              failures: 1,
              notBefore: T0 + 60_000,
              lastError:
                'CustomerKeyHasBeenRevoked: Volume vol-1 cannot be attached. The encrypted volume was unable to access the KMS master key.',
            },
          },
        }),
      ],
    }),
  ],
  ['not-desired', VOLUME, world({ pods: [] })],
  ['pod-not-found', { kind: 'pod', namespace: 'default', name: 'nope' }, world()],
  ['pod-not-scheduled', WEB, world({ pods: [pod('web', { claims: ['data'], node: null })] })],
  ['pod-terminated', WEB, world({ pods: [pod('web', { claims: ['data'], phase: 'Succeeded' })] })],
  ['no-ebs-volumes', WEB, world({ pods: [pod('web')] })],
  ['unknown', { kind: 'node', name: 'node-x' }, world()],
];

describe('explain: the other states of a chain', () => {
  it.each(STATES)('%s', (code, target, w) => {
    const explained = run(target, w);
    expect(explained.chains.map((c) => c.code)).toEqual([code]);
    oneSentence(explained.verdict);
    expect(explained.attached).toBe(code === 'attached');
  });

  it('every code has a sentence, and every code with a sentence is reached by a row above', () => {
    const reached = [...SKIP_CODES, ...WAIT_CODES, MASS_DETACH_GUARD, ...STATES.map(([code]) => code)];
    expect([...new Set(reached)].sort()).toEqual([...EXPLAINED_CODES].sort());
  });
});

describe('explain: the chain and the one sentence', () => {
  it('a pod whose volume is attached: the whole chain, pod to node status', () => {
    const explained = run(WEB, world({ records: [record(V, [attachment('node-a')])] }));
    expect(explained.chains[0]!.steps.map((s) => s.kind)).toEqual([
      'pod',
      'claim',
      'pv',
      'volume',
      'desired',
      'record',
      'ec2',
      'volumeAttachment',
      'node',
    ]);
    expect(explained.chains[0]!.steps.map((s) => s.says)).toEqual([
      'default/web: Running, on node node-a',
      'PVC default/data: Bound, volumeName pv-data',
      `PV pv-data: CSI ebs.csi.aws.com, volumeHandle ${V}; ReadWriteOnce; claimRef default/data`,
      V,
      `node-a (instance ${instanceOf('node-a')}), for pod(s) default/web`,
      `attached on node-a (instance ${instanceOf('node-a')}, device /dev/xvdaa), reported yes, mounted no`,
      `not asked; instance ${instanceOf('node-a')} not asked`,
      'none',
      'node-a: Ready, managed; not in volumesInUse; not in volumesAttached',
    ]);
    expect(explained).toMatchObject({
      target: 'pod default/web',
      attached: true,
      verdict: 'Attached to node-a and reported on the node: nothing to do.',
    });
  });

  it('backing off: the record shows the last EC2 error and the sentence says when the next try is', () => {
    const explained = run(WEB, WAIT_SCENARIOS.find((s) => s.code === 'backing-off')!.world);
    expect(explained.chains[0]!.steps.find((s) => s.kind === 'record')!.says).toContain(
      'last EC2 error: AttachVolume: InvalidParameterValue',
    );
    expect(explained.verdict).toMatch(/the next try is in 30 s\.$/);
  });

  it('a claim and a node reach the same chains as the pod', () => {
    const w = world({ records: [record(V, [attachment('node-a')])] });
    expect(run({ kind: 'pvc', namespace: 'default', name: 'data' }, w).chains).toEqual(run(WEB, w).chains);
    expect(run({ kind: 'node', name: 'node-a' }, w).chains).toEqual(run(WEB, w).chains);
  });

  it('a node with two volumes: one sentence counting them and naming the one that is not attached', () => {
    const w = world({
      nodes: [node('node-a'), node('node-b')],
      records: [record(V, [attachment('node-a')])],
      pods: [pod('web', { claims: ['data'] })],
    });
    w.records.push(record(vol(2), [attachment('node-a')]));
    const explained = run({ kind: 'node', name: 'node-a' }, w);
    expect(explained.chains.map((c) => c.code)).toEqual(['attached', 'will-detach']);
    expect(explained.verdict).toMatch(
      new RegExp(`^1 of 2 volumes are attached and reported; ${vol(2)} on node-a: attached to node-a, to be detached`),
    );
  });

  it('a node whose pod volume was skipped names that pod volume in its one sentence', () => {
    const w = world({ pvcs: [pvc('data', { pv: null })], records: [record(vol(2), [attachment('node-a')])] });
    const explained = run({ kind: 'node', name: 'node-a' }, w);
    expect(explained.chains.map((c) => c.code)).toEqual(['claim-unbound', 'will-detach']);
    expect(explained.verdict).toMatch(
      /^0 of 2 volumes are attached and reported; default\/web volume v-data on node-a: not attached: PVC default\/data is not bound/,
    );
    oneSentence(explained.verdict);
  });
});

describe('explain: a volume the role may not attach', () => {
  it("names the tag the volume lacks, from EC2's tags and the role's scheme, never 'will attach'", () => {
    const w = world({ volumes: [{ volumeId: V, exists: true, attachments: [], tags: { 'kubernetes.io/created-for/pvc/name': 'data' } }] });
    const tagScheme = {
      volume: [{ key: 'ebs.csi.aws.com/cluster-name', value: 'prod' }],
      instance: [{ key: 'eks:cluster-name', value: 'prod' }],
    };
    const explained = explain(WEB, {
      snapshot: w.snapshot,
      complete: true,
      actual: new Map(),
      observations: w.observations,
      now: w.now,
      config: w.config,
      tagScheme,
      instanceTags: new Map([[instanceOf('node-a'), { 'eks:cluster-name': 'prod' }]]),
    });
    expect(explained.chains.map((c) => c.code)).toEqual(['not-authorized']);
    expect(explained.verdict).toContain(`not authorized: volume ${V} lacks tag ebs.csi.aws.com/cluster-name=prod that the role requires`);
    oneSentence(explained.verdict);
  });
});
