/**
 * The attacher story (`npm start -- --mode attacher`): on EKS kcm's attach/detach controller
 * decides what is attached where by creating and deleting VolumeAttachments; we replace the EBS
 * CSI driver's csi-attacher sidecar. We take its Lease, attach a StatefulSet's volumes, detach
 * after a pod is deleted, and free a reclaimed spot instance's volume without kcm's six minutes.
 */
import type { GenOwner, GenPod } from '../generate/model.js';
import { SIDECAR_LEASE, sidecarOnKube } from '../lease-election.js';
import type { Director } from './director.js';
import { check, notAttached, podEvents, scheduledEvent, short, type Chapter, type Check } from './scene.js';
import { attachedByUs, mountedAfterKcm, volumeAttachmentGone, volumeAttachmentOf } from './va-checks.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const ordersDb: GenOwner = { kind: 'StatefulSet', name: 'orders-db', uid: 'orders-db-uid' };

function leaseHolder(director: Director): string | undefined {
  const lease = director.stage.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as
    { spec?: { holderIdentity?: string } } | undefined;
  return lease?.spec?.holderIdentity;
}

function ec2MutationsSince(director: Director, mark: number): number {
  return director.ec2Mutations.length - mark;
}

export const fenceTakeover: Chapter = {
  title: "Taking the csi-attacher sidecar's Lease (the fence)",
  async play({ director, actors, say }) {
    const clock = director.stage.clock;
    const sidecar = sidecarOnKube(director.stage.kube.kubeconfigPath, clock);
    try {
      await sidecar.elector.tick();
      say(
        `The EBS CSI add-on's csi-attacher leads: it holds the Lease ${SIDECAR_LEASE.namespace}/${SIDECAR_LEASE.name}, renewing every 5 s.`,
      );
      say('(The sandbox plays only its leader election, not its attaching.)');
      const pod = actors.statefulMember('ledger', { kind: 'StatefulSet', name: 'ledger', uid: 'ledger-uid' }, 0, actors.spareNode());
      const node = actors.nodeOf(pod);
      actors.used.add(node.name);
      director.kubelets();
      const mark = director.ec2Mutations.length;
      const [fenced] = (await director.clusterEvents([scheduledEvent(pod)], 'Scheduled event (fenced)')).reports;
      say(`Our pass only plans while the sidecar leads: "${fenced?.fenced ?? 'not fenced'}".`);
      for (let t = 0; t < 20 * SECOND; t += 5 * SECOND) {
        await sidecar.elector.tick();
        clock.advance(5 * SECOND);
      }
      const stillFenced = (await director.tick('scheduled full pass (sidecar renewing)')).reports[0]?.fenced;
      const fencedCalls = ec2MutationsSince(director, mark);
      say('The add-on is scaled to 0 replicas: nobody renews the Lease. 16 s later our pass finds it unchanged for 15 s and takes it.');
      clock.advance(16 * SECOND);
      const taken = (await director.tick('scheduled full pass (Lease expired)')).reports[0];
      const volume = actors.volumeOf(pod);
      return [
        check(
          'while the sidecar held the Lease, both passes only planned (fenced), with an attach planned',
          fenced?.fenced !== undefined && stillFenced !== undefined && fenced.actions.length > 0,
          `${fenced?.actions.length ?? 0} action(s) planned`,
        ),
        check('no AttachVolume or DetachVolume while fenced', fencedCalls === 0, `${fencedCalls} call(s)`),
        check(
          `we hold the Lease (${director.stage.config.leaseFence?.identity ?? '?'}) and that pass acted`,
          leaseHolder(director) === director.stage.config.leaseFence?.identity && taken?.fenced === undefined,
          `holder ${leaseHolder(director) ?? 'none'}`,
        ),
        attachedByUs(director, volume, node),
        mountedAfterKcm(director, volume, node),
      ];
    } finally {
      await sidecar.close();
    }
  },
};

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

export const spotReclaim: Chapter = {
  title: 'A spot instance is reclaimed: out-of-service at once, no six-minute wait',
  async play({ director, actors, say }) {
    const clock = director.stage.clock;
    const pod = memberOf(actors, 'orders-db-0');
    const from = actors.nodeOf(pod);
    const to = actors.nodeInZoneOf(from, actors.used);
    actors.used.add(to.name);
    const volume = actors.volumeOf(pod);
    say(`EC2 reclaims ${from.instanceId} (${short(from)}): shutting-down, then terminated. The Node object is still there.`);
    actors.terminate(from);
    await director.ec2Event(from.instanceId, 'shutting-down', 'EC2 state change: shutting-down');
    clock.advance(10 * SECOND);
    const started = clock.now();
    await director.ec2Event(from.instanceId, 'terminated', 'EC2 state change: terminated');
    const tainted = director.truth().nodes.get(from.name)?.outOfService ?? false;
    say(`Our EC2-event pass tainted ${short(from)} node.kubernetes.io/out-of-service:NoExecute; kcm deletes the VolumeAttachment at once.`);
    actors.silence(from);
    actors.remove(pod);
    const replacement = actors.schedule(
      { namespace: pod.namespace, name: pod.name, app: pod.app, owner: pod.owner, claims: pod.claims },
      to,
    );
    say(
      `The taint evicts ${pod.name}; the StatefulSet recreates it on ${short(to)}. kcm creates its VolumeAttachment once the old one is detached.`,
    );
    await director.clusterEvents([scheduledEvent(replacement)], 'Scheduled event');
    for (let minute = 1; minute <= 3 && !attachedByUs(director, volume, to).ok; minute++) {
      clock.advance(MINUTE - ((clock.now() - started) % MINUTE));
      await director.tick(`scheduled full pass (+${minute} min)`);
    }
    const took = clock.now() - started;
    say(
      `Terminated → attached on ${short(to)} in ${Math.round(took / SECOND)} s of story time; without the taint kcm waits 6 min (maxWaitForUnmount) first.`,
    );
    return [
      check(`our EC2-event pass tainted ${short(from)} out of service while its Node still existed`, tainted),
      volumeAttachmentGone(director, volume, from),
      attachedByUs(director, volume, to),
      mountedAfterKcm(director, volume, to),
      check(
        "attached on the new node well before kcm's six-minute wait would have ended",
        took < 6 * MINUTE,
        `${Math.round(took / SECOND)} s`,
      ),
    ];
  },
};

export const ATTACHER_CHAPTERS = [fenceTakeover, statefulSetScheduled, podDeleted, spotReclaim];
