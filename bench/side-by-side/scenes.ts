/**
 * The scenes the side-by-side bench plays on a stage, with one implementation running:
 * - churn: pods bound to nodes in a steady stream, each deleted a while later; kcm (attacher mode)
 *   creates and deletes their VolumeAttachments, the kubelets mount and unmount;
 * - rolling update: a StatefulSet's pods replaced one at a time, highest ordinal first, each new pod
 *   bound to another node, the next one deleted only once the new one runs (its volume mounted).
 * Time is the stage's clock. A wait that nothing can end before the next full pass (no pass
 * running, EC2 settled, no unmount under way) skips ahead to that pass instead of sleeping
 * through it, so today's path takes minutes of story time and seconds of real time; the skips are
 * counted.
 */
import { attachmentState } from '../../sandbox/ec2/state/lifecycle.js';
import type { WorldVolume } from '../../sandbox/world.js';
import type { Running } from './implementations.js';
import type { Stage } from './stage.js';

const POLL_MS = 50;
/** How long (real time) the stage must sit still before the scene skips ahead to the next full pass. */
const STILL_MS = 1_000;

export interface Skips {
  count: number;
  ms: number;
}

function ec2Settled(stage: Stage): boolean {
  const { world } = stage.world.ec2;
  const now = stage.clock.now();
  for (const volume of world.volumes.values())
    for (const attachment of volume.attachments.values()) {
      const state = attachmentState(attachment, now, world.config.delays);
      if (state === 'attaching' || state === 'detaching') return false;
    }
  return true;
}

/** Story time a wait may take before the scene gives up on it: ten full passes, and a minute more per change in flight. */
export const capFor = (changes: number) => 600_000 + changes * 60_000;

/**
 * Waits until `done` holds; skips ahead to the next full pass when nothing else can move. Past
 * `capMs` of story time it gives up and says so (false): a measured outcome, not a crash.
 */
export async function waitFor(
  stage: Stage,
  running: Running,
  skips: Skips,
  what: string,
  done: () => boolean,
  capMs = capFor(1),
): Promise<boolean> {
  const startedAt = stage.clock.now();
  let stillSince = performance.now();
  while (!done()) {
    if (stage.clock.now() - startedAt > capMs) {
      console.error(`side-by-side: not within ${capMs / 1000} s of story time: ${what}`);
      return false;
    }
    const next = running.nextFullPassAt();
    const still = !running.busy() && ec2Settled(stage) && stage.kubelets.pendingUnmounts().length === 0;
    if (!still) stillSince = performance.now();
    else if (next !== undefined && performance.now() - stillSince > STILL_MS && next > stage.clock.now()) {
      const jump = next - stage.clock.now();
      stage.clock.advance(jump);
      skips.count += 1;
      skips.ms += jump;
      stillSince = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

export interface ChurnTimes {
  /** Each pod's binding and deletion (story time), by volume id. */
  bound: Map<string, number>;
  deleted: Map<string, number>;
  /** Volumes still attached somewhere when the wait gave up (0: every one detached). */
  unfinished: number;
}

const podOf = (i: number) => `churn-${i}`;
const detachedEverywhere = (stage: Stage, volumes: readonly WorldVolume[]) =>
  volumes.every((v) => (stage.world.ec2.world.volumes.get(v.volumeId)?.attachments.size ?? 0) === 0);

/** One pod per volume, bound every `spacingMs` to the nodes in turn, each deleted `lifetimeMs` after its binding. */
export async function churn(
  stage: Stage,
  running: Running,
  volumes: readonly WorldVolume[],
  options: { spacingMs: number; lifetimeMs: number },
  skips: Skips,
): Promise<ChurnTimes> {
  const times: ChurnTimes = { bound: new Map(), deleted: new Map(), unfinished: 0 };
  const deletions: Promise<void>[] = [];
  const nodes = stage.world.nodes;
  for (const [i, volume] of volumes.entries()) {
    const node = nodes[i % nodes.length]!.name;
    stage.world.addPod(podOf(i), volume, node, 'Pending');
    times.bound.set(volume.volumeId, stage.clock.now());
    running.podBound(volume.namespace, podOf(i), node);
    deletions.push(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          stage.world.kube.kubelet.deletePod(volume.namespace, podOf(i), { graceful: true });
          times.deleted.set(volume.volumeId, stage.clock.now());
          running.podDeleted(volume.namespace, podOf(i));
          resolve();
        }, options.lifetimeMs),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, options.spacingMs));
  }
  await Promise.all(deletions);
  const all = () => detachedEverywhere(stage, volumes);
  if (!(await waitFor(stage, running, skips, 'every churned volume detached', all, capFor(volumes.length))))
    times.unfinished = volumes.filter((v) => !detachedEverywhere(stage, [v])).length;
  return times;
}

interface StsPod {
  name: string;
  volume: WorldVolume;
  node: number;
}

const podPhase = (stage: Stage, name: string) =>
  (stage.world.kube.get('Pod', 'default', name) as { status?: { phase?: string } } | undefined)?.status?.phase;

/** The StatefulSet's pods running before the update, pod i on node i. */
export async function statefulSet(stage: Stage, running: Running, volumes: readonly WorldVolume[], skips: Skips): Promise<StsPod[]> {
  const pods = volumes.map((volume, i) => ({ name: `sts-${i}`, volume, node: i }));
  for (const pod of pods) {
    const node = stage.world.nodes[pod.node]!.name;
    stage.world.addPod(pod.name, pod.volume, node, 'Pending');
    running.podBound('default', pod.name, node);
  }
  const runningAll = () => pods.every((p) => podPhase(stage, p.name) === 'Running');
  if (!(await waitFor(stage, running, skips, 'the StatefulSet running', runningAll, capFor(pods.length))))
    throw new Error('side-by-side: the StatefulSet never ran; no rolling update to measure');
  return pods;
}

/** The rolling update: story time from the first deletion until the last new pod runs, and each pod's share. */
export async function rollingUpdate(
  stage: Stage,
  running: Running,
  pods: StsPod[],
  skips: Skips,
): Promise<{ totalMs: number; perPodMs: number[]; unfinished?: string }> {
  const nodes = stage.world.nodes;
  const started = stage.clock.now();
  const perPodMs: number[] = [];
  for (const pod of [...pods].reverse()) {
    const podStart = stage.clock.now();
    stage.world.kube.kubelet.deletePod('default', pod.name, { graceful: true });
    running.podDeleted('default', pod.name);
    if (!(await waitFor(stage, running, skips, `${pod.name} gone`, () => podPhase(stage, pod.name) === undefined)))
      return { totalMs: stage.clock.now() - started, perPodMs, unfinished: `${pod.name} never went` };
    // The StatefulSet controller makes the pod again; the scheduler binds it to another node.
    pod.node = (pod.node + pods.length) % nodes.length;
    const node = nodes[pod.node]!.name;
    stage.world.addPod(pod.name, pod.volume, node, 'Pending');
    running.podBound('default', pod.name, node);
    if (!(await waitFor(stage, running, skips, `${pod.name} running on ${node}`, () => podPhase(stage, pod.name) === 'Running')))
      return { totalMs: stage.clock.now() - started, perPodMs, unfinished: `${pod.name} never ran on ${node}` };
    perPodMs.push(stage.clock.now() - podStart);
  }
  return { totalMs: stage.clock.now() - started, perPodMs };
}
