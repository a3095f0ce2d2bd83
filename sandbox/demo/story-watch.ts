/**
 * The watcher in the story, one chapter per mode: a pod moves to another node and nothing else
 * tells us (no cluster event, no full pass). The watcher sees the change on its watch and runs the
 * targeted pass for it; the chapter prints what it reacted to and how fast (real milliseconds from
 * the change reaching the watcher to its pass starting, the pass's own length, and the move's
 * whole time until the volume is served on its new node).
 */
import type { Reaction } from '../../lambda/reconcile/watch/types.js';
import { targetKey } from '../../lambda/reconcile/pass/types.js';
import type { GenNode, GenPod, GenVolume } from '../generate/model.js';
import type { Director } from './director.js';
import { check, notAttached, served, short, type Chapter, type Check } from './scene.js';
import { attachedByUs, mountedAfterKcm, volumeAttachmentGone } from './va-checks.js';

/** Polls (real time) until `ready` holds, stepping the cluster's own components (kcm, kubelets) as their loops would. */
async function until(director: Director, ready: () => boolean, what: string): Promise<void> {
  for (const giveUp = performance.now() + 30_000; !ready();) {
    if (performance.now() > giveUp) throw new Error(`the story waited 30 s for ${what}`);
    director.kubelets();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function describe(reaction: Reaction, factor: number): string {
  const real = (ms: number) => `${Math.round(ms / factor)} ms`;
  return `${targetKey(reaction.target)}: queued ${real(reaction.startedAt - reaction.receivedAt)}, pass ${real(reaction.finishedAt - reaction.startedAt)}, ${reaction.actions} action(s), ${reaction.outcome}`;
}

interface Move {
  pod: GenPod;
  volume: GenVolume;
  from: GenNode;
  to: GenNode;
}

/** Moves `move.pod` with a watcher running and nothing else; `done` says when the move is served. */
async function moveWithWatcher(
  director: Director,
  say: (line: string) => void,
  move: Move,
  reschedule: () => GenPod,
  done: () => boolean,
): Promise<Check[]> {
  const reactions: Reaction[] = [];
  const watcher = director.watch((reaction) => {
    reactions.push(reaction);
    say(`  watcher → ${describe(reaction, director.stage.clock.factor)}`);
  });
  await until(director, () => director.stage.kube.requests().some((r) => r.verb === 'watch'), 'the watcher to watch');
  const before = director.truth();
  const invocations = director.invocations.length;
  const movedAt = performance.now();
  reschedule();
  await until(director, done, `${move.volume.volumeId} on ${short(move.to)}`);
  const servedMs = performance.now() - movedAt;
  const report = await watcher.stop();
  director.checkpoint(before, 'watcher');
  say(
    `The watcher saw ${report.changes} change(s) (its first list included), ${report.actionable} asked for a pass; ${report.passes} pass(es) ran. ${move.volume.volumeId} served on ${short(move.to)} ${(servedMs / 1000).toFixed(1)} s (real time) after the move.`,
  );
  return [
    check(
      'the watcher alone did it: no full pass, no cluster event ran',
      director.invocations.length === invocations,
      `${director.invocations.length - invocations} other invocation(s)`,
    ),
    check(
      'the watcher ran the targeted passes',
      reactions.length > 0 && reactions.every((r) => r.outcome !== 'failed'),
      `${reactions.length} pass(es)`,
    ),
  ];
}

export const watcherMovesPod: Chapter = {
  title: 'The watcher: a pod moves, and nothing else tells us',
  async play({ director, actors, say }) {
    const pod = actors.cluster.pods.find(
      (p) =>
        p.owner.kind === 'ReplicaSet' &&
        p.claims.length === 1 &&
        p.phase === 'Running' &&
        !actors.used.has(p.nodeName ?? '') &&
        p.app !== 'ledger-readers',
    );
    if (pod === undefined) throw new Error('the cluster has no single-replica Deployment with a volume');
    const from = actors.nodeOf(pod);
    const move: Move = { pod, volume: actors.volumeOf(pod), from, to: actors.nodeInZoneOf(from) };
    actors.used.add(move.from.name).add(move.to.name);
    say(
      `A watcher holds list+watch on pods and nodes. ${pod.namespace}/${pod.name} moves from ${short(move.from)} to ${short(move.to)}; no event is forwarded.`,
    );
    const checks = await moveWithWatcher(
      director,
      say,
      move,
      () => {
        actors.remove(pod);
        director.unmount();
        return actors.schedule(
          { namespace: pod.namespace, name: `${pod.owner.name}-${actors.suffix()}`, app: pod.app, owner: pod.owner, claims: pod.claims },
          move.to,
        );
      },
      () => served(director, move.volume, move.to).ok && notAttached(director, move.volume, move.from).ok,
    );
    return [notAttached(director, move.volume, move.from), served(director, move.volume, move.to), ...checks];
  },
};

export const watcherMovesStatefulPod: Chapter = {
  title: "The watcher: a StatefulSet pod moves node; kcm's VolumeAttachments are all we see",
  async play({ director, actors, say }) {
    const pod = actors.cluster.pods.find((p) => p.name === 'orders-db-1');
    if (pod === undefined) throw new Error('no pod orders-db-1: the StatefulSet chapter did not run');
    const from = actors.nodeOf(pod);
    const move: Move = { pod, volume: actors.volumeOf(pod), from, to: actors.spareNode(11, from.zone) };
    actors.used.add(move.to.name);
    say(`A watcher holds list+watch on VolumeAttachments. ${pod.name} moves from ${short(move.from)} to ${short(move.to)}:`);
    say('kcm deletes the old VolumeAttachment after the unmount and creates the new one; no event, no full pass.');
    const checks = await moveWithWatcher(
      director,
      say,
      move,
      () => {
        actors.remove(pod);
        director.unmount();
        return actors.schedule({ namespace: pod.namespace, name: pod.name, app: pod.app, owner: pod.owner, claims: pod.claims }, move.to);
      },
      () =>
        attachedByUs(director, move.volume, move.to).ok &&
        mountedAfterKcm(director, move.volume, move.to).ok &&
        volumeAttachmentGone(director, move.volume, move.from).ok,
    );
    return [
      notAttached(director, move.volume, move.from),
      volumeAttachmentGone(director, move.volume, move.from),
      attachedByUs(director, move.volume, move.to),
      mountedAfterKcm(director, move.volume, move.to),
      ...checks,
    ];
  },
};
