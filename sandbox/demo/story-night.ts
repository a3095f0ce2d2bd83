/**
 * The second half of the story: a node stops reporting (the six-minute force detach), an instance
 * is terminated (its volumes are free at once), EC2 throttles a burst of attaches, and a Lambda
 * dies in the middle of an attach (the next pass finishes its work).
 */
import type { GenNode, GenPod } from '../generate/model.js';
import { EC2_THROTTLE } from '../ec2/throttle.js';
import type { Actors } from './actors.js';
import { invokeAndKillMidAttach } from './crash.js';
import type { Director } from './director.js';
import { kubernetesEvent, sqsBatch } from '../events.js';
import { total } from '../oracle/ledger.js';
import { check, notAttached, podEvents, scheduledEvent, served, short, stillAttached, type Chapter } from './scene.js';

const MINUTE = 60_000;

/** A node not used by an earlier chapter that runs a single-replica Deployment with a volume, and another node in its zone. */
function quietCorner(actors: Actors, want: (pod: GenPod) => boolean): { node: GenNode; pod: GenPod; spare: GenNode } {
  for (const node of [...actors.cluster.nodes].reverse()) {
    if (actors.used.has(node.name)) continue;
    const pod = actors.podsOn(node).find(want);
    const spare = actors.cluster.nodes.find((n) => n.zone === node.zone && n.name !== node.name && !actors.used.has(n.name));
    if (pod && spare) {
      actors.used.add(node.name).add(spare.name);
      return { node, pod, spare };
    }
  }
  throw new Error('no unused node fits this chapter; try more nodes');
}

const withVolume = (pod: GenPod) => pod.claims.length === 1 && pod.app !== 'ledger-readers';

export const nodeGoesQuiet: Chapter = {
  title: 'A node stops reporting: the six-minute force detach',
  async play({ director, actors, say }) {
    const { node, pod, spare } = quietCorner(actors, (p) => withVolume(p) && p.owner.kind === 'ReplicaSet');
    const volume = actors.volumeOf(pod);
    const stays = actors
      .podsOn(node)
      .filter((p) => withVolume(p) && p !== pod)
      .map((p) => actors.volumeOf(p));
    say(
      `${short(node)} stops posting status and turns NotReady. Its pod ${pod.name} is force-deleted; the replacement lands on ${short(spare)}.`,
    );
    actors.silence(node);
    actors.remove(pod);
    const replacement = actors.schedule(
      { namespace: pod.namespace, name: `${pod.owner.name}-${actors.suffix()}`, app: pod.app, owner: pod.owner, claims: pod.claims },
      spare,
    );
    const since = director.stage.clock.now();
    const nodeEvent = {
      object: { kind: 'Node' as const, name: node.name },
      reason: 'NodeNotReady',
      message: `Node ${node.name} status is now: NodeNotReady`,
    };
    await director.clusterEvents([nodeEvent, scheduledEvent(replacement)], 'NodeNotReady + Scheduled events');
    const warned = podEvents(director, replacement, 'FailedAttachVolume').some((e) => e.message.startsWith('Multi-Attach error'));
    say('The volume may still be mounted there, and nobody can ask the node: the controller waits maxWaitForUnmount (6 min).');
    director.stage.clock.advance(3 * MINUTE);
    await director.tick('scheduled full pass (+3 min)');
    const heldAt3 = stillAttached(director, volume, node);
    say('Three minutes later: still attached. Another three and a half minutes pass…');
    director.stage.clock.advance(3.5 * MINUTE);
    const forced = await director.tick('scheduled full pass (+6.5 min)');
    await director.settle(3);
    const detach = forced.reports.flatMap((r) => r.results).find((r) => r.kind === 'detach' && r.volumeId === volume.volumeId);
    return [
      check('the replacement pod got a Multi-Attach warning while the old node held the volume', warned),
      { ...heldAt3, name: `after 3 minutes ${heldAt3.name}` },
      check(
        'the detach was forced by the unmount timeout, at least 6 minutes after it was requested',
        detach?.forcedTrigger === 'unmount-timeout' && forced.at - since >= 6 * MINUTE,
        detach ? `${detach.outcome}: ${detach.detail}` : 'no detach in that pass',
      ),
      notAttached(director, volume, node),
      served(director, volume, spare),
      ...stays.map((v) => ({ ...stillAttached(director, v, node), name: `still needed on the NotReady node, so kept: ${v.volumeId}` })),
    ];
  },
};

export const instanceTerminated: Chapter = {
  title: 'An instance is terminated: its volumes are free at once',
  async play({ director, actors, say }) {
    const { node, spare } = quietCorner(actors, (p) => withVolume(p) && p.owner.kind === 'StatefulSet');
    const moving = actors.podsOn(node).filter((p) => withVolume(p) && p.owner.kind === 'StatefulSet');
    say(`EC2 terminates ${node.instanceId} (${short(node)}). EC2 sends shutting-down, then terminated.`);
    actors.terminate(node);
    await director.ec2Event(node.instanceId, 'shutting-down', 'EC2 state change: shutting-down');
    director.stage.clock.advance(10_000);
    actors.silence(node);
    const started = director.stage.clock.now();
    await director.ec2Event(node.instanceId, 'terminated', 'EC2 state change: terminated');
    say(`The node's pods are removed; the StatefulSet recreates ${moving.map((p) => p.name).join(', ')} on ${short(spare)}.`);
    const replacements = moving.map((pod) => {
      actors.remove(pod);
      return actors.schedule({ namespace: pod.namespace, name: pod.name, app: pod.app, owner: pod.owner, claims: pod.claims }, spare);
    });
    await director.clusterEvents(replacements.map(scheduledEvent), 'Scheduled events');
    const reported = director.truth().nodes.get(node.name)?.volumesAttached.length ?? 0;
    return [
      ...replacements.map((pod) => served(director, actors.volumeOf(pod), spare)),
      check(
        'no six-minute wait: attached again before maxWaitForUnmount could have run out',
        director.stage.clock.now() - started < 6 * MINUTE,
        `${Math.round((director.stage.clock.now() - started) / 1000)} s of story time`,
      ),
      check(`${short(node)} no longer reports any volume attached`, reported === 0, `${reported} listed`),
    ];
  },
};

export const throttlingStorm: Chapter = {
  title: 'An EC2 throttling storm',
  async play({ director, actors, say }) {
    const stage = director.stage;
    const throttledBefore = total(stage.ledger.ec2Totals.throttled);
    const waiting = actors.cluster.pods.filter((p) => p.nodeName === undefined);
    const pods = waiting.map((pod) => {
      const node = actors.spareNode(0, actors.volumeOf(pod).zone);
      actors.remove(pod);
      return actors.schedule({ namespace: pod.namespace, name: pod.name, app: pod.app, owner: pod.owner, claims: pod.claims }, node);
    });
    const owner = { kind: 'StatefulSet' as const, name: 'search-index', uid: 'search-index-uid' };
    for (let ordinal = 0; ordinal < 6; ordinal++) {
      const node = actors.spareNode(ordinal * 2);
      actors.provision('search', `data-search-index-${ordinal}`, node.zone);
      pods.push(
        actors.schedule(
          { namespace: 'search', name: `search-index-${ordinal}`, app: 'search-index', owner, claims: [`data-search-index-${ordinal}`] },
          node,
        ),
      );
    }
    say(
      `${pods.length} pods need volumes at once while EC2's mutating bucket is nearly empty (2 tokens, slow refill): RequestLimitExceeded.`,
    );
    stage.ec2.configureThrottle({ mutating: { capacity: 2, refillPerSecond: 0.02 }, nonMutating: EC2_THROTTLE.nonMutating });
    await director.clusterEvents(pods.map(scheduledEvent), 'Scheduled events (burst)');
    say('The storm passes; the per-volume backoff lets later passes finish the work.');
    stage.ec2.configureThrottle(EC2_THROTTLE);
    await director.settle(5, 30_000);
    const throttled = total(stage.ledger.ec2Totals.throttled) - throttledBefore;
    return [
      check('EC2 answered RequestLimitExceeded during the storm', throttled > 0, `${throttled} throttled call(s)`),
      ...pods.map((pod) => served(director, actors.volumeOf(pod), actors.nodeOf(pod))),
    ];
  },
};

export const lambdaDies: Chapter = {
  title: 'A Lambda dies mid-attach',
  async play({ director, actors, say }) {
    const node = actors.spareNode();
    const members = actors.cluster.pods.filter((p) => p.app === 'orders-db').length;
    const owner = actors.cluster.pods.find((p) => p.app === 'orders-db')?.owner ?? {
      kind: 'StatefulSet' as const,
      name: 'orders-db',
      uid: 'orders-db-uid',
    };
    const pod = actors.statefulMember('payments', owner, members, node);
    const volume = actors.volumeOf(pod);
    say(
      `${pod.name} is scheduled on ${short(node)}; the cluster-event Lambda writes its intent, calls AttachVolume — and is killed (SIGKILL).`,
    );
    const result = await deadInvocation(director, pod);
    // The crash is the kill at the end of deadInvocation: the child's start-up before it (a fresh
    // Node process importing the handler) runs on the scaled story clock and is no part of recovery.
    const crashedAt = director.stage.clock.now();
    const orphan = served(director, volume, node);
    const mark = director.ec2Mutations.length;
    await director.tick('scheduled full pass (lease still held)');
    const secondAttach = director.ec2Mutations.slice(mark).some((m) => m.action === 'AttachVolume' && m.volumeId === volume.volumeId);
    say(
      "EC2 finished the attach, but nothing reported it. The intent's lease ends with the dead invocation's own timeout (5 min) plus a 15 s margin; then the next pass asks EC2 and records the truth.",
    );
    director.stage.clock.advance(5 * MINUTE + 20_000);
    await director.settle(3);
    const recoveredAfter = director.stage.clock.now() - crashedAt;
    return [
      check(
        'the invocation was killed after EC2 received AttachVolume',
        result.killed,
        `${result.attachCallsSeen} AttachVolume call(s) seen`,
      ),
      check('right after the crash the volume is not yet reported to the kubelet', !orphan.ok, orphan.detail),
      check("no second AttachVolume while the dead invocation's lease holds", !secondAttach),
      served(director, volume, node),
      check(
        "recovered within the dead invocation's timeout plus the lease margin, not a fixed 15 minutes",
        recoveredAfter < 6 * MINUTE,
        `${Math.round(recoveredAfter / 1000)} s of story time from the crash to the volume reported`,
      ),
    ];
  },
};

async function deadInvocation(director: Director, pod: GenPod) {
  const before = director.truth();
  director.stage.ledger.drain();
  const event = sqsBatch([
    kubernetesEvent(
      { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
      'Scheduled',
      `Successfully assigned ${pod.namespace}/${pod.name} to ${pod.nodeName ?? ''}`,
      director.stage.clock.now(),
    ),
  ]);
  const result = await invokeAndKillMidAttach(director.stage, event);
  director.checkpoint(before, 'cluster-event Lambda killed mid-attach');
  director.kubelets();
  return result;
}
