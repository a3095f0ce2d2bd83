/**
 * A simulated kube-controller-manager for the EBS CSI driver's volumes: its attach/detach
 * controller (desired state from pods, VolumeAttachments created and deleted, node
 * `volumesAttached` written) and its garbage collector's part for CSINodes. It acts only when
 * stepped, on the sandbox clock, like the simulated kubelets (`sandbox/kubelets.ts`): tests, the
 * demo and the fault suite call `step()` between passes. See README.md for what it leaves out.
 */
import type { KubeNode, KubePod, KubePv, KubePvc } from '../../lambda/core/kube.js';
import type { Clock } from '../../lambda/clock.js';
import { ActualState, attachmentKey } from './actual.js';
import { checkAttach, startAttaches } from './attach.js';
import { vaNameOf, writeNodeStatus, type KcmContext, type KcmKube, type KcmStepReport, type Va, type View } from './context.js';
import { volumesToAttach } from './desired.js';
import { checkDetach, startDetaches } from './detach.js';
import { PodEvents } from './events.js';
import { collectCsiNodes } from './garbage-collector.js';
import { createPodControllers } from './pod-eviction.js';
import { Operations } from './operations.js';

export type { KcmStepReport } from './context.js';

/** reconcilerSyncDuration: how often kcm checks that what it believes attached still is. */
const SYNC_PERIOD_MS = 60_000;
/** reconcilerLoopPeriod: how often the attach/detach reconciler runs. */
const RECONCILER_LOOP_MS = 100;

export interface Kcm {
  /**
   * One round: taint eviction and (every 20 s) pod GC act on the pods, then the attach/detach
   * reconciler finishes what the attacher answered, syncs, detaches, attaches, writes node status.
   */
  step(): KcmStepReport;
  /**
   * Steps every `periodMs` of the clock (upstream's reconciler loop period is 100 ms) until the
   * returned function is called: for a scene where our pass waits on kcm while it runs.
   */
  run(periodMs?: number): () => Promise<void>;
}

function readView(kube: KcmKube): View {
  const nodes = kube.list('Node') as KubeNode[];
  const desired = volumesToAttach(
    nodes,
    kube.list('Pod') as KubePod[],
    kube.list('PersistentVolumeClaim') as KubePvc[],
    kube.list('PersistentVolume') as KubePv[],
  );
  return {
    nodes: new Map(nodes.map((n) => [n.metadata.name ?? '', n])),
    vas: new Map((kube.list('VolumeAttachment') as Va[]).map((va) => [va.metadata.name ?? '', va])),
    desired: new Map(desired.map((v) => [attachmentKey(v.uniqueName, v.nodeName), v])),
  };
}

/** syncStates: a VA gone or no longer attached means the volume is not attached (it will be attached again if wanted). */
function syncStates(ctx: KcmContext, view: View): void {
  for (const attachment of ctx.actual.all()) {
    const key = attachmentKey(attachment.volume.uniqueName, attachment.volume.nodeName);
    if (!attachment.confirmed || ctx.operations.busy(key, ctx.now)) continue;
    const va = view.vas.get(vaNameOf(attachment.volume));
    if (va?.status?.attached !== true) ctx.actual.markDetached(attachment.volume.uniqueName, attachment.volume.nodeName);
  }
}

export function createKcm(kube: KcmKube, clock: Pick<Clock, 'now' | 'sleep'>): Kcm {
  const actual = new ActualState();
  const operations = new Operations();
  const events = new PodEvents(kube.components, () => clock.now());
  const multiAttachReported = new Set<string>();
  const inUse = new Map<string, Set<string>>();
  let lastSync = clock.now();
  // kcm's pod controllers act on an out-of-service node's pods before the attach/detach reconciler looks.
  const podControllers = createPodControllers(kube, clock);
  const kcm: Kcm = {
    step() {
      const report: KcmStepReport = {
        created: [],
        deleted: [],
        attached: [],
        detached: [],
        failed: [],
        nodeStatusWrites: 0,
        ...podControllers(),
      };
      const view = readView(kube);
      const ctx: KcmContext = { kube, now: clock.now(), actual, operations, events, multiAttachReported, inUse, report };
      for (const [name, node] of view.nodes) inUse.set(name, new Set(node.status?.volumesInUse ?? []));
      for (const key of multiAttachReported) if (!view.desired.has(key)) multiAttachReported.delete(key);
      for (const [key, operation] of operations.inFlight())
        (operation.kind === 'attach' ? checkAttach : checkDetach)(ctx, view, key, operation);
      if (ctx.now - lastSync >= SYNC_PERIOD_MS) {
        syncStates(ctx, view);
        lastSync = ctx.now;
      }
      startDetaches(ctx, view);
      startAttaches(ctx, view);
      for (const nodeName of view.nodes.keys()) writeNodeStatus(ctx, view, nodeName);
      collectCsiNodes(kube, view);
      return report;
    },
    run(periodMs = RECONCILER_LOOP_MS) {
      let running = true;
      const loop = (async () => {
        while (running) {
          kcm.step();
          await clock.sleep(periodMs);
        }
      })();
      return async () => {
        running = false;
        await loop;
      };
    },
  };
  return kcm;
}
