/**
 * The first half of the story: the controller takes over a running cluster, a StatefulSet scales
 * up, a pod moves to another node, and a pod asks for a volume another node holds.
 */
import type { GenOwner, GenPod } from '../generate/model.js';
import { check, killingEvent, notAttached, podEvents, scheduledEvent, served, short, type Chapter, type Check } from './scene.js';

export const takeover: Chapter = {
  title: 'Taking over a running cluster',
  async play({ director, actors, say }) {
    say(
      'The first scheduled pass reads the cluster, seeds the actual state from node status and VolumeAttachments, verifies it against EC2,',
    );
    say('and attaches the volumes of pods that were already scheduled but still waiting (ContainerCreating).');
    const waiting = actors.cluster.pods.filter((p) => p.phase === 'Pending' && p.nodeName !== undefined);
    await director.tick();
    return waiting.map((pod) => served(director, actors.volumeOf(pod), actors.nodeOf(pod)));
  },
};

export const scaleUp: Chapter = {
  title: 'Scale-up: orders-db grows by three replicas',
  async play({ director, actors, say }) {
    const members = actors.cluster.pods.filter((p) => p.app === 'orders-db');
    const owner = members[0]?.owner ?? { kind: 'StatefulSet' as const, name: 'orders-db', uid: 'orders-db-uid' };
    const pods: GenPod[] = [];
    for (let i = 0; i < 3; i++) {
      const ordinal = members.length + i;
      const node = actors.cluster.nodes[(ordinal * 7) % actors.cluster.nodes.length];
      if (!node) throw new Error('the cluster has no nodes');
      pods.push(actors.statefulMember('payments', owner, ordinal, node));
    }
    say(`The provisioner creates three gp3 volumes; the scheduler places ${pods.map((p) => p.name).join(', ')}.`);
    say('kubernetes-event-exporter forwards the Scheduled events; EventBridge → SQS → the cluster-event Lambda runs targeted passes.');
    await director.clusterEvents(pods.map(scheduledEvent), 'Scheduled events (SQS batch)');
    return pods.map((pod) => served(director, actors.volumeOf(pod), actors.nodeOf(pod)));
  },
};

function singleReplicaPod(pods: GenPod[], avoid: Set<string>): GenPod {
  const pod = pods.find(
    (p) =>
      p.owner.kind === 'ReplicaSet' &&
      p.claims.length === 1 &&
      p.phase === 'Running' &&
      !avoid.has(p.nodeName ?? '') &&
      p.app !== 'ledger-readers',
  );
  if (!pod) throw new Error('the cluster has no single-replica Deployment with a volume');
  return pod;
}

export const reschedule: Chapter = {
  title: 'A pod is rescheduled to another node',
  async play({ director, actors, say }) {
    const old = singleReplicaPod(actors.cluster.pods, new Set());
    const from = actors.nodeOf(old);
    const to = actors.nodeInZoneOf(from);
    const volume = actors.volumeOf(old);
    actors.used.add(from.name).add(to.name);
    say(`${old.namespace}/${old.name} is drained from ${short(from)}; its Deployment's new pod lands on ${short(to)} (same zone).`);
    actors.remove(old);
    director.unmount();
    const replacement = actors.schedule(
      { namespace: old.namespace, name: `${old.owner.name}-${actors.suffix()}`, app: old.app, owner: old.owner, claims: old.claims },
      to,
    );
    say('The volume must leave the old node before EC2 will attach it to the new one: detach first, then attach.');
    const mark = director.ec2Mutations.length;
    await director.clusterEvents([killingEvent(old), scheduledEvent(replacement)], 'Killing + Scheduled events');
    if (!served(director, volume, to).ok) await director.settle(3);
    const calls = director.ec2Mutations.slice(mark).filter((m) => m.volumeId === volume.volumeId);
    const detachAt = calls.findIndex((m) => m.action === 'DetachVolume' && m.instanceId === from.instanceId);
    const attachAt = calls.findIndex((m) => m.action === 'AttachVolume' && m.instanceId === to.instanceId);
    return [
      notAttached(director, volume, from),
      served(director, volume, to),
      check(
        'DetachVolume from the old node came before AttachVolume to the new one',
        detachAt >= 0 && detachAt < attachAt,
        calls.map((c) => c.action).join(' → '),
      ),
    ];
  },
};

export const multiAttach: Chapter = {
  title: 'Multi-Attach: a second pod wants an RWO volume held by another node',
  async play({ director, actors, say }) {
    const holder = actors.cluster.pods.find(
      (p) => p.owner.kind === 'StatefulSet' && p.phase === 'Running' && p.claims.length === 1,
    ) as GenPod;
    const volume = actors.volumeOf(holder);
    const at = actors.nodeOf(holder);
    const elsewhere = actors.nodeInZoneOf(at);
    actors.used.add(at.name).add(elsewhere.name);
    const owner: GenOwner = { kind: 'ReplicaSet', name: `debug-${actors.suffix()}`, uid: 'debug' };
    say(
      `Someone starts a debug pod on ${short(elsewhere)} that mounts ${holder.claims[0]} (ReadWriteOnce), which ${holder.name} uses on ${short(at)}.`,
    );
    const debug = actors.schedule(
      { namespace: holder.namespace, name: `${owner.name}-${actors.suffix()}`, app: 'debug', owner, claims: holder.claims },
      elsewhere,
    );
    await director.clusterEvents([scheduledEvent(debug)], 'Scheduled event');
    const warnings = podEvents(director, debug, 'FailedAttachVolume').filter((e) => e.message.startsWith('Multi-Attach error'));
    if (warnings[0]) say(`Event on ${debug.name}: Warning FailedAttachVolume "${warnings[0].message}"`);
    const checks: Check[] = [
      check(
        'a Warning FailedAttachVolume "Multi-Attach error …" event was recorded on the pod',
        warnings.length > 0,
        `${warnings.length} event(s)`,
      ),
      served(director, volume, at),
      notAttached(director, volume, elsewhere),
    ];
    say('The debug pod is deleted again.');
    actors.remove(debug);
    await director.clusterEvents([killingEvent(debug)], 'Killing event');
    return checks;
  },
};
