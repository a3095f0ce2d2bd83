/**
 * The adoption index (lambda/core/adoption.ts): the same answers as the rule stated node by node
 * (verification.ts), from one walk of the nodes per pass instead of one per volume described.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adoptionIndex } from '../../lambda/core/adoption.js';
import { type DesiredState, type NodeView, pairKey, pairOf } from '../../lambda/core/types.js';
import { volumeOfNodeStatusName } from '../../lambda/core/volume-sources.js';
import { desired, uname, view, vol, want } from './builders.js';

/** The rule as DESIGN states it, walking every node for the one volume asked about. */
function adoptableByRule(state: DesiredState, volumeId: string): [string, string][] {
  const found: [string, string][] = [];
  for (const node of state.nodes.values()) {
    if (node.instanceId === undefined) continue;
    const names = [...node.volumesAttached.map((v) => v.name), ...node.volumesInUse];
    const reported = names.some((name) => volumeOfNodeStatusName(name) === volumeId);
    const kcm = state.decidedBy.kind === 'kcm';
    const hasVa = state.decidedBy.kind === 'pods' && state.decidedBy.volumeAttachmentPairs?.has(pairKey(volumeId, node.name)) === true;
    if (kcm || reported || hasVa) found.push([node.instanceId, node.name]);
  }
  return found.sort();
}

function knownByRule(state: DesiredState, volumeId: string): boolean {
  if (state.attachments.some((a) => a.volumeId === volumeId)) return true;
  if (state.decidedBy.kind === 'kcm' && [...state.decidedBy.released].some((key) => pairOf(key).volumeId === volumeId)) return true;
  return [...state.nodes.values()].some((node) =>
    [...node.volumesAttached.map((v) => v.name), ...node.volumesInUse].some((name) => volumeOfNodeStatusName(name) === volumeId),
  );
}

const NODES = ['node-a', 'node-b', 'node-c', 'node-d'];
const VOLUMES = [1, 2, 3, 4, 5].map(vol);

const aNode = fc.record({
  name: fc.constantFrom(...NODES),
  hasInstance: fc.boolean(),
  attached: fc.subarray(VOLUMES),
  inUse: fc.subarray(VOLUMES),
  odd: fc.boolean(),
});

const aWorld = fc.record({
  nodes: fc.uniqueArray(aNode, { selector: (n) => n.name, maxLength: NODES.length }),
  wanted: fc.array(fc.tuple(fc.constantFrom(...VOLUMES), fc.constantFrom(...NODES)), { maxLength: 4 }),
  vaPairs: fc.array(fc.tuple(fc.constantFrom(...VOLUMES), fc.constantFrom(...NODES)), { maxLength: 4 }),
  kcm: fc.boolean(),
});

type World = typeof aWorld extends fc.Arbitrary<infer W> ? W : never;

function stateOf(world: World): DesiredState {
  const views: NodeView[] = world.nodes.map((n) => {
    const base = view(n.name, { inUse: n.inUse, attached: n.attached.map((v) => ({ name: uname(v), devicePath: '/dev/xvdba' })) });
    // A name no volume id can be read from (another driver's, or garbage) counts for nothing.
    const odd = n.odd ? { volumesInUse: [...base.volumesInUse, 'kubernetes.io/csi/efs.csi.aws.com^fs-1'] } : {};
    return { ...(n.hasInstance ? base : { ...base, instanceId: undefined }), ...odd };
  });
  const pairs = new Set(world.vaPairs.map(([v, n]) => pairKey(v, n)));
  const decidedBy: DesiredState['decidedBy'] = world.kcm
    ? { kind: 'kcm', released: pairs }
    : { kind: 'pods', volumeAttachmentPairs: pairs };
  return desired(
    world.wanted.map(([v, n]) => want(v, n)),
    views,
    { decidedBy },
  );
}

describe('adoptionIndex', () => {
  it('answers as the rule does, node by node, for every volume and either mode', () => {
    fc.assert(
      fc.property(aWorld, (world) => {
        const state = stateOf(world);
        const index = adoptionIndex(state);
        for (const volumeId of [...VOLUMES, vol(99)]) {
          expect([...index.adoptable(volumeId)].sort()).toEqual(adoptableByRule(state, volumeId));
          expect(index.knows(volumeId)).toBe(knownByRule(state, volumeId));
        }
      }),
    );
  });

  it('walks the nodes once, however many volumes a verification asks about', () => {
    const nodes = NODES.map((name, i) => view(name, { inUse: [vol(i)] }));
    const state = desired([], nodes);
    let walks = 0;
    const counted = new Map(state.nodes);
    const values = counted.values.bind(counted);
    counted.values = () => (walks++, values());
    const index = adoptionIndex({ ...state, nodes: counted });

    for (let n = 0; n < 1_000; n++) index.adoptable(vol(n));

    expect(walks).toBe(1);
  });
});
