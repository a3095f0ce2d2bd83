/**
 * The attacher-mode targeted passes. The watcher names one VolumeAttachment (kcm created, changed or
 * is deleting it): it is read by name and handled as external-attacher's syncAttach / syncDetach
 * handle it (csi_handler.go): a live one is attached, one being deleted is detached if it carries
 * our finalizer, one that is gone needs nothing. Without a watcher, the fastest trigger is the
 * pod's `Scheduled` event (forwarded by the event exporter): from the pod we compute the objects kcm
 * will make for its volumes (one per CSI volume handle on its node), poll exactly those for a short
 * bounded time (`attacherWaitMs`), and handle the ones that appear, attach only (the scope holds no
 * node, so nothing is detached on a partial read). Any other target runs the full attacher pass:
 * one list of each kind is cheap and kcm, not the target, decides what is detached. The full pass
 * every minute remains the safety net. An EC2 instance's event runs the full pass too, and follows
 * a dead instance through (instance-pass.ts).
 */
import { expectedAttachments, type ExpectedAttachment } from '../../core/attacher/expected.js';
import type { KubeVolumeAttachment } from '../../core/kube.js';
import { pairKey } from '../../core/types.js';
import { poll } from '../pass/poll.js';
import { runPass } from '../pass/template.js';
import type { Budget, PassOptions, PassReport, Target } from '../pass/types.js';
import { actOnVolumeAttachments } from './act-on.js';
import type { AttacherDeps } from './deps.js';
import { runAttacherFullPass } from './full-pass.js';
import { runDeadInstancePass } from './instance-pass.js';

/** Reads the expected objects until all exist or the wait is over (one last look at its end); returns those found. */
export async function pollVolumeAttachments(
  deps: Pick<AttacherDeps, 'cluster' | 'clock' | 'sleep'>,
  expected: readonly Pick<ExpectedAttachment, 'handle' | 'nodeName'>[],
  waitMs: number,
): Promise<KubeVolumeAttachment[]> {
  const found = new Map<string, KubeVolumeAttachment>();
  await poll(deps, { until: deps.clock() + waitMs, lastLook: 'at-until' }, async () => {
    const missing = expected.filter((e) => !found.has(pairKey(e.handle, e.nodeName)));
    const read = await Promise.all(missing.map((e) => deps.cluster.readVolumeAttachmentFor(e.handle, e.nodeName)));
    missing.forEach((e, i) => {
      const va = read[i];
      if (va !== undefined) found.set(pairKey(e.handle, e.nodeName), va);
    });
    return found.size === expected.length;
  });
  return [...found.values()];
}

export async function runAttacherTargetedPass(
  baseDeps: AttacherDeps,
  target: Target,
  budget: Budget,
  options: PassOptions = {},
): Promise<PassReport> {
  if (target.kind === 'instance') return { ...(await runDeadInstancePass(baseDeps, target.instanceId, budget, options)), target };
  if (target.kind === 'volumeAttachment') return runVolumeAttachmentPass(baseDeps, target, budget, options);
  if (target.kind !== 'pod') return { ...(await runAttacherFullPass(baseDeps, budget, { ...options, complete: true })), target };
  return runPass(baseDeps, options, async ({ deps, dryRun }) => {
    const closure = await deps.cluster.readPod(target.namespace, target.name);
    const nodeName = closure.pod?.spec?.nodeName;
    const expected = closure.pod === undefined ? [] : expectedAttachments(closure.pod, closure.pvcs, closure.pvs);
    // The node's CSINode and Node are read while the VolumeAttachments are polled, not after them.
    const [volumeAttachments, [csiNode, node]] = await Promise.all([
      expected.length === 0 ? [] : pollVolumeAttachments(deps, expected, deps.settings.attacherWaitMs),
      nodeName === undefined || expected.length === 0
        ? [undefined, undefined]
        : Promise.all([deps.cluster.readCsiNode(nodeName), deps.cluster.readNode(nodeName)]),
    ]);
    const step = await actOnVolumeAttachments(
      deps,
      budget,
      { volumeAttachments, pvs: closure.pvs, csiNodes: csiNode ? [csiNode] : [], nodes: node ? [node] : [] },
      dryRun,
    );
    const { ctx, executed, verified, corrupt } = step;
    return { kind: 'targeted', ctx, executed, clusterComplete: true, verified, seeded: false, corrupt, extra: { target } };
  });
}

/** One VolumeAttachment, read by name: attach it while it lives, detach it from its node while it is deleted. */
function runVolumeAttachmentPass(
  baseDeps: AttacherDeps,
  target: Extract<Target, { kind: 'volumeAttachment' }>,
  budget: Budget,
  options: PassOptions,
): Promise<PassReport> {
  // Reads first: the handover entry (attacher mode's admission) is written while EC2 and the store
  // are read, and nothing is written or sent before it is in (act-on.ts), one round trip saved.
  return runPass(
    baseDeps,
    options,
    async ({ deps, dryRun, admitted }) => {
      const va = target.seen ?? (await deps.cluster.readVolumeAttachment(target.name));
      // Only the object's own node may lose a volume, and only the volume it names (the plan's scope).
      const detachFrom = va?.metadata.deletionTimestamp ? [va.spec.nodeName] : [];
      // The watcher's cached PV, CSINode and Node serve an attach only; a detach reads its objects live.
      const known = detachFrom.length === 0 ? (target.known ?? {}) : {};
      const volumeAttachments = va === undefined ? [] : [va];
      const step = await actOnVolumeAttachments(deps, budget, { volumeAttachments, detachFrom, ...known }, dryRun, admitted);
      const { ctx, executed, verified, corrupt } = step;
      return { kind: 'targeted', ctx, executed, clusterComplete: true, verified, seeded: false, corrupt, extra: { target } };
    },
    true,
  );
}
