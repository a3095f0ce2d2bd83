/**
 * One targeted attacher step over VolumeAttachments read by name: the PVs, CSINodes and nodes they
 * name are read by name too, the plan sees only their volumes (and may detach only from
 * `detachFrom`, nodes whose objects were all read), and the reports go to those objects. A pod's
 * `Scheduled` event and a dead instance's follow-through both act through it.
 */
import { attacherDesiredState } from '../../core/attacher/desired.js';
import { attacherTargets } from '../../core/attacher/targets.js';
import type { KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment } from '../../core/kube.js';
import type { DesiredState, InstanceId, NodeName } from '../../core/types.js';
import type { CorruptItem } from '../../ports/volume-store.js';
import type { PassContext } from '../pass/state.js';
import { createPassContext } from '../pass/context.js';
import { planAndExecute, type Executed } from '../pass/plan-and-execute.js';
import type { Budget } from '../pass/types.js';
import { askEc2, verifyAgainstEc2 } from '../pass/verify.js';
import type { AttacherDeps } from './deps.js';
import { attacherMode } from './reports.js';

export interface VaStepInput {
  volumeAttachments: readonly KubeVolumeAttachment[];
  /** PVs already read (a pod's closure); the others the objects name are read by name. */
  pvs?: readonly KubePv[];
  /** CSINodes and Nodes already read (a pod's node, read while its VolumeAttachments were polled). */
  csiNodes?: readonly KubeCsiNode[];
  nodes?: readonly KubeNode[];
  /** Nodes a detach may be planned on; none by default (attach only). */
  detachFrom?: readonly NodeName[];
  /** Instances EC2 is asked about besides those of the attachments (a dead one's state forces its detach). */
  instances?: readonly InstanceId[];
}

export interface VaStep {
  ctx: PassContext;
  desired: DesiredState;
  executed: Executed;
  verified: boolean;
  corrupt: CorruptItem[];
}

const present = <T>(items: readonly (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);

async function namedObjects(deps: AttacherDeps, input: VaStepInput) {
  const known = new Map((input.pvs ?? []).map((pv) => [pv.metadata.name ?? '', pv]));
  const pvNames = [...new Set(input.volumeAttachments.flatMap((va) => va.spec.source.persistentVolumeName ?? []))];
  const missing = pvNames.filter((name) => !known.has(name));
  const nodeNames = [...new Set(input.volumeAttachments.map((va) => va.spec.nodeName))];
  const unread = <T extends { metadata: { name?: string } }>(had: readonly T[] = []) =>
    nodeNames.filter((name) => !had.some((o) => o.metadata.name === name));
  const [readPvs, csiNodes, nodes] = await Promise.all([
    Promise.all(missing.map((name) => deps.cluster.readPv(name))),
    Promise.all(unread(input.csiNodes).map((name) => deps.cluster.readCsiNode(name))),
    Promise.all(unread(input.nodes).map((name) => deps.cluster.readNode(name))),
  ]);
  return {
    pvs: [...known.values(), ...present<KubePv>(readPvs)],
    csiNodes: [...(input.csiNodes ?? []), ...present<KubeCsiNode>(csiNodes)],
    nodes: [...(input.nodes ?? []), ...present<KubeNode>(nodes)],
  };
}

/** The deps a step acts with, once its pass is admitted (runPass's `admitted`); the reads go through the step's `deps`. */
type Admitted = () => Promise<{ deps: AttacherDeps; dryRun: boolean }>;

export async function actOnVolumeAttachments(
  deps: AttacherDeps,
  budget: Budget,
  input: VaStepInput,
  dryRunAsked: boolean,
  admitted?: Admitted,
): Promise<VaStep> {
  const named =
    input.volumeAttachments.length === 0 ? { pvs: [...(input.pvs ?? [])], csiNodes: [], nodes: [] } : await namedObjects(deps, input);
  const view = { volumeAttachments: [...input.volumeAttachments], ...named };
  const targets = attacherTargets(view);
  const volumes = [...new Set(targets.flatMap((t) => t.volumeId ?? []))].sort();
  const scope = { volumes, nodes: [...(input.detachFrom ?? [])].sort() };
  const desired = attacherDesiredState(view, targets, { complete: true, scope });
  const instanceIds = [...new Set([...targets.flatMap((t) => t.instanceId ?? []), ...(input.instances ?? [])])].sort();
  // EC2 is asked while the records are read: its answers are written onto them once both are in.
  const look = volumes.length > 0 ? askEc2(deps, volumes, instanceIds) : undefined;
  const loaded = await deps.store.getMany(volumes);
  // Everything above only read; what writes (verification's corrections, the plan's actions) waits for the admission.
  const acting = admitted === undefined ? { deps, dryRun: dryRunAsked } : await admitted();
  const ctx = createPassContext(
    acting.deps,
    budget,
    { desired, actual: loaded.records },
    attacherMode(acting.deps, { targets, pvsRead: view.pvs }),
  );
  const verified = look !== undefined && (await verifyAgainstEc2(ctx, volumes, instanceIds, look)) !== undefined;
  const executed = await planAndExecute(ctx, acting.dryRun);
  return { ctx, desired, executed, verified, corrupt: loaded.corrupt };
}
