/**
 * The attacher story (`npm start -- --mode attacher`): on EKS kcm's attach/detach controller
 * decides what is attached where by creating and deleting VolumeAttachments; we replace the EBS
 * CSI driver's csi-attacher sidecar. We take over from it (shadow, fence, adopt), attach a StatefulSet's volumes, detach
 * after a pod is deleted, and free a reclaimed spot instance's volume without kcm's six minutes.
 */
import { NODE_MONITOR_GRACE_MS } from '../dead-instance.js';
import { MAX_WAIT_FOR_UNMOUNT_MS } from '../kcm/detach.js';
import type { Director } from './director.js';
import type { GenOwner, GenPod } from '../generate/model.js';
import { check, notAttached, podEvents, scheduledEvent, short, type Chapter, type Check } from './scene.js';
import { sidecarTakeover } from './story-takeover.js';
import { watcherMovesStatefulPod } from './story-watch.js';
import { attachedByUs, mountedAfterKcm, volumeAttachmentGone, volumeAttachmentOf } from './va-checks.js';

const SECOND = 1000;
const ordersDb: GenOwner = { kind: 'StatefulSet', name: 'orders-db', uid: 'orders-db-uid' };

export const statefulSetScheduled: Chapter = {
  title: "A StatefulSet's pods are scheduled: kcm creates VolumeAttachments, we attach",
  async play({ director, actors, say }) {
    const pods = [0, 1, 2].map((ordinal) => {
      const node = actors.spareNode(ordinal * 3);
      actors.used.add(node.name);
      return actors.statefulMember('payments', ordersDb, ordinal, node);
    });
    say(`The scheduler places ${pods.map((p) => `${p.name} on ${short(actors.nodeOf(p))}`).join(', ')}.`);
    say("kcm creates one VolumeAttachment per (volume, node); that raises no Event, but the pods' Scheduled events do:");
    say('each targeted pass computes the names kcm gives its VolumeAttachments and polls exactly those.');
    director.kubelets();
    await director.clusterEvents(pods.map(scheduledEvent), 'Scheduled events (SQS batch)');
    const checks: Check[] = pods.flatMap((pod) => [
      attachedByUs(director, actors.volumeOf(pod), actors.nodeOf(pod)),
      mountedAfterKcm(director, actors.volumeOf(pod), actors.nodeOf(pod)),
    ]);
    const attachedEvents = pods.filter((p) => podEvents(director, p, 'SuccessfulAttachVolume').length > 0).length;
    return [...checks, check('kcm recorded SuccessfulAttachVolume on each pod', attachedEvents === pods.length, `${attachedEvents}`)];
  },
};

function memberOf(actors: { cluster: { pods: GenPod[] } }, name: string): GenPod {
  const pod = actors.cluster.pods.find((p) => p.name === name);
  if (!pod) throw new Error(`no pod ${name}: the StatefulSet chapter did not run`);
  return pod;
}

export const podDeleted: Chapter = {
  title: 'A pod is deleted: kcm deletes the VolumeAttachment after the unmount, we detach',
  async play({ director, actors, say }) {
    const pod = memberOf(actors, 'orders-db-2');
    const node = actors.nodeOf(pod);
    const volume = actors.volumeOf(pod);
    say(`${pod.name} is scaled away; the kubelet on ${short(node)} unmounts its volume.`);
    actors.remove(pod);
    director.unmount();
    director.kubelets();
    const va = volumeAttachmentOf(director, volume, node);
    const held = va?.metadata.deletionTimestamp !== undefined && va.metadata.deletionTimestamp !== null;
    say('kcm deletes the VolumeAttachment; our finalizer holds it. A deletion raises no Event: the next scheduled pass detaches.');
    const mark = director.ec2Mutations.length;
    await director.tick();
    const detached = director.ec2Mutations.slice(mark).some((m) => m.action === 'DetachVolume' && m.volumeId === volume.volumeId);
    director.kubelets();
    return [
      check(
        'kcm deleted the VolumeAttachment only after the unmount; our finalizer held it',
        held,
        va ? 'no deletionTimestamp' : 'already gone',
      ),
      check('the pass called DetachVolume', detached),
      notAttached(director, volume, node),
      volumeAttachmentGone(director, volume, node),
    ];
  },
};

/** Polls (real time) until `ready` holds; the story's actors wait on what the controller and kcm do. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (const giveUp = performance.now() + 30 * SECOND; !ready();) {
    if (performance.now() > giveUp) throw new Error(`the story waited 30 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const spotReclaim: Chapter = {
  title: 'A spot instance is reclaimed: freed within the EC2 event’s own pass, no six-minute wait',
  async play({ director, actors, say }) {
    const { clock, kube } = director.stage;
    const pod = memberOf(actors, 'orders-db-0');
    const from = actors.nodeOf(pod);
    const to = actors.nodeInZoneOf(from, actors.used);
    actors.used.add(to.name);
    const volume = actors.volumeOf(pod);
    say(`EC2 reclaims ${from.instanceId} (${short(from)}): shutting-down, then terminated. The Node object is still there.`);
    actors.terminate(from);
    const died = clock.now();
    await director.ec2Event(from.instanceId, 'shutting-down', 'EC2 state change: shutting-down');
    clock.advance(10 * SECOND);
    const started = clock.now();
    const invocationsBefore = director.invocations.length;
    say('kcm now runs on its own (every 100 ms) while our EC2-event pass follows the node through:');
    const stopKcm = director.stage.kcm?.run();
    let tainted = false;
    // Upstream's order (KEP-2268): taint eviction at once; NotReady 40 s after the last heartbeat; pod GC; the StatefulSet's replacement.
    const cluster = async () => {
      await until(() => director.truth().nodes.get(from.name)?.outOfService ?? false, 'the taint');
      tainted = true;
      say(`Tainted out of service: kcm evicts ${pod.name} (Terminating). ${short(from)} turns NotReady 40 s after its last heartbeat;`);
      clock.advance(Math.max(0, died + NODE_MONITOR_GRACE_MS - clock.now()));
      actors.silence(from);
      await until(() => kube.get('Pod', pod.namespace, pod.name) === undefined, "pod GC's force-delete");
      actors.forget(pod);
      say(`pod GC force-deletes ${pod.name}, kcm deletes its VolumeAttachment, the StatefulSet recreates it on ${short(to)}.`);
      const replacement = actors.schedule(
        { namespace: pod.namespace, name: pod.name, app: pod.app, owner: pod.owner, claims: pod.claims },
        to,
      );
      return director.clusterEventRun([scheduledEvent(replacement)], 'Scheduled event')();
    };
    try {
      await director.step([director.ec2EventRun(from.instanceId, 'terminated', 'EC2 state change: terminated'), cluster]);
    } finally {
      await stopKcm?.();
    }
    const took = clock.now() - started;
    say(
      `Terminated → attached on ${short(to)} in ${Math.round(took / SECOND)} s of story time, 40 s of it the node's NotReady wait; without the taint kcm waits 6 min (maxWaitForUnmount) first.`,
    );
    return [
      check(`our EC2-event pass tainted ${short(from)} out of service while its Node still existed`, tainted),
      volumeAttachmentGone(director, volume, from),
      attachedByUs(director, volume, to),
      mountedAfterKcm(director, volume, to),
      // Whether a full pass ran is counted, not timed: kcm steps on the running clock here, so story time stretches with the machine's load.
      check('attached by the event passes alone, no scheduled full pass', noFullPassSince(director, invocationsBefore)),
      check(
        'attached before kcm’s six-minute wait for the unmount would have ended',
        took < MAX_WAIT_FOR_UNMOUNT_MS,
        `${Math.round(took / SECOND)} s`,
      ),
    ];
  },
};

function noFullPassSince(director: Director, index: number): boolean {
  return director.invocations.slice(index).every((invocation) => invocation.handler !== 'scheduled');
}

export const ATTACHER_CHAPTERS = [sidecarTakeover, statefulSetScheduled, watcherMovesStatefulPod, podDeleted, spotReclaim];
