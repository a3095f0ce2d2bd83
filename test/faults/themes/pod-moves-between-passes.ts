/**
 * A new pod of an RWO claim is scheduled on one node and, within a second, deleted and created on
 * another (a StatefulSet pod evicted while it starts), just as two full passes run: the first to
 * list pods sees it on the first node, the other on the second. Both read the store before either
 * wrote, so both plan an attach, each to its own node; only the lock, taken with a conditional
 * write, keeps the io2 volume (Multi-Attach enabled in EC2) off the second node (invariant 1).
 * Later a second replica is scheduled over one of those RWO claims on another node (a Deployment
 * scaled up over an RWO claim): it waits for good, told so by a Multi-Attach error event.
 */
import { applyChange } from '../cluster.js';
import { moveOf, pickExclusiveMove, settleThenTwice, SPARE_CLAIMS, type ExclusiveMove } from './exclusive.js';
import { busiestNodes, CALM_STEP, FULL_PASS, type ArmedEvent, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

/** Moves the pod once the first pod list is answered: every later list (the other pass's) sees it moved. */
function armMove({ world, cluster, random }: ThemeContext, move: ExclusiveMove): ArmedEvent {
  let note: string | undefined;
  const stop = world.kube.onRequest({
    after: (info) => {
      if (note !== undefined || info.resource !== 'pods' || info.verb !== 'list') return;
      const change = moveOf(cluster, move);
      applyChange(world, cluster, random, change);
      note = `pod of ${move.claim} moved from ${move.from} to ${move.to} after the first pod list`;
    },
  });
  return { stop, note: () => note };
}

function race(ctx: ThemeContext): ScriptedStep | undefined {
  const move = pickExclusiveMove(ctx.world, ctx.cluster, ctx.random);
  if (move === undefined) return undefined;
  return {
    ...CALM_STEP,
    changes: [{ kind: 'add', claim: move.claim, node: move.from }],
    passes: [FULL_PASS, FULL_PASS],
    arm: (armed) => armMove(armed, move),
  };
}

/** A second pod for an exclusive claim already in use, on another Ready node. */
function secondReplica({ cluster, random }: ThemeContext): ScriptedStep | undefined {
  const used = cluster.pods.filter((p) => p.claims[0] !== 'shared-block');
  if (used.length === 0) return undefined;
  const first = random.pick(used);
  const elsewhere = busiestNodes(cluster).filter((n) => n.name !== first.nodeName);
  if (elsewhere.length === 0) return undefined;
  return { ...CALM_STEP, changes: [{ kind: 'conflict', claim: first.claims[0] as string, node: random.pick(elsewhere).name }] };
}

export const POD_MOVES_BETWEEN_PASSES: Theme = {
  name: 'pod-moves-between-passes',
  shape: SPARE_CLAIMS,
  step: (step, ctx) => (step === 6 ? secondReplica(ctx) : settleThenTwice(step, ctx, race)),
};
