/**
 * The attacher-mode targeted pass. Creating a VolumeAttachment raises no Kubernetes Event, so the
 * fastest trigger that needs nothing in the cluster is the pod's `Scheduled` event: from the pod
 * we compute the names kcm will give its VolumeAttachments, poll exactly those for a short bounded
 * time (`attacherWaitMs`), and handle the ones that appear, attach only (the scope holds no node,
 * so nothing is detached on a partial read). Any other target runs the full attacher pass: one
 * list of each kind is cheap and kcm, not the target, decides what is detached. The full pass
 * every minute remains the safety net for anything a poll missed. An EC2 instance's event runs the
 * full pass too, and follows a dead instance through (instance-pass.ts).
 */
import { volumeAttachmentName } from '../../adapters/kubernetes/volume-attachment-name.js';
import { expectedAttachments } from '../../core/attacher/expected.js';
import type { KubeVolumeAttachment } from '../../core/kube.js';
import { dryRunStore } from '../pass/dry-run.js';
import { summarize } from '../pass/plan-and-execute.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps, Target } from '../pass/types.js';
import { runAttacherFullPass } from './full-pass.js';
import { runDeadInstancePass } from './instance-pass.js';
import { actOnVolumeAttachments } from './act-on.js';

const POLL_FIRST_MS = 200;
const POLL_FACTOR = 1.5;

/** Reads the named objects until all exist or the wait is over; returns those found. */
export async function pollVolumeAttachments(
  deps: ReconcileDeps,
  names: readonly string[],
  waitMs: number,
): Promise<KubeVolumeAttachment[]> {
  const found = new Map<string, KubeVolumeAttachment>();
  let waited = 0;
  for (let delay = POLL_FIRST_MS; ; delay *= POLL_FACTOR) {
    const missing = names.filter((name) => !found.has(name));
    const read = await Promise.all(missing.map((name) => deps.cluster.readVolumeAttachment(name)));
    for (const va of read) if (va?.metadata.name !== undefined) found.set(va.metadata.name, va);
    if (found.size === names.length || waited >= waitMs) break;
    const pause = Math.min(Math.round(delay), waitMs - waited);
    await deps.sleep(pause);
    waited += pause;
  }
  return [...found.values()];
}

export async function runAttacherTargetedPass(
  baseDeps: ReconcileDeps,
  target: Target,
  budget: Budget,
  options: PassOptions = {},
): Promise<PassReport> {
  if (target.kind === 'instance') return { ...(await runDeadInstancePass(baseDeps, target.instanceId, budget, options)), target };
  if (target.kind !== 'pod') return { ...(await runAttacherFullPass(baseDeps, budget, options)), target };
  const dryRun = options.dryRun === true;
  const deps = dryRun ? { ...baseDeps, store: dryRunStore(baseDeps.store) } : baseDeps;
  const startedAt = deps.clock();
  const passId = options.passId ?? deps.newId();
  const closure = await deps.cluster.readPod(target.namespace, target.name);
  const nodeName = closure.pod?.spec?.nodeName;
  const expected = closure.pod === undefined ? [] : expectedAttachments(closure.pod, closure.pvcs, closure.pvs);
  const names = expected.map((e) => volumeAttachmentName(e.handle, e.nodeName));
  // The node's CSINode and Node are read while the VolumeAttachments are polled, not after them.
  const [volumeAttachments, [csiNode, node]] = await Promise.all([
    names.length === 0 ? [] : pollVolumeAttachments(deps, names, deps.settings.attacherWaitMs),
    nodeName === undefined || names.length === 0
      ? [undefined, undefined]
      : Promise.all([deps.cluster.readCsiNode(nodeName), deps.cluster.readNode(nodeName)]),
  ]);
  const { ctx, desired, executed, verified, corrupt } = await actOnVolumeAttachments(
    deps,
    budget,
    { volumeAttachments, pvs: closure.pvs, csiNodes: csiNode ? [csiNode] : [], nodes: node ? [node] : [] },
    dryRun,
  );
  const problems = [
    ...desired.problems.map((message) => ({ source: 'kubernetes' as const, message })),
    ...corrupt.map((item) => ({ source: 'dynamodb' as const, message: `item ${item.key}: ${item.problem}` })),
  ];
  const summary = { passId, kind: 'targeted' as const, startedAt, dryRun, clusterComplete: true, verified, seeded: false, problems };
  return { ...summarize(ctx, summary, executed), target };
}
