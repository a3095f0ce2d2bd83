/**
 * DESIGN §11's safety invariants, checked against ground truth around every step of a run:
 * `checkStep` looks at the state before and after a step and at the DetachVolume calls EC2
 * received during it; `checkConvergence` says whether the world has settled where it should.
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { volumeIdOf } from '../../lambda/core/volume-id.js';
import type { DetachCall, Ec2Mutation } from './calls.js';
import { ec2Attachment, type Truth, type TruthNode } from './truth.js';

/** DESIGN §11's numbers; `A1`…`A5` are their attacher-mode restatements (oracle/attacher/README.md). */
export type InvariantId = 1 | 2 | 3 | 4 | 5 | 6 | 'A1' | 'A2' | 'A3' | 'A4' | 'A5';

export interface Violation {
  invariant: InvariantId;
  message: string;
}

export const INVARIANT_TITLES: Record<InvariantId, string> = {
  1: 'an exclusive volume is never attached to two nodes',
  2: 'a volume mounted on a Ready, in-service node is never detached',
  3: 'a failed or partial read never causes a detach',
  4: 'after crashes and faults the next passes converge',
  5: "a node's volumesAttached never claims a volume EC2 has not attached to it",
  6: 'no AttachVolume for a pair already attached, and none on a device name another volume holds on the instance',
  A1: "a VolumeAttachment never says attached for a volume EC2 does not show attached on its node's instance",
  A2: 'no DetachVolume of a pair a live VolumeAttachment (no deletionTimestamp) asks for',
  A3: 'our VolumeAttachment finalizer is never removed while EC2 still holds the volume on that instance',
  A4: "after a crashed pass's lease, no EC2 attachment is unknown to the store",
  A5: 'an exclusive volume is never attached to two instances',
};

const RUNNING = 'running';

/** One step as the checks see it: ground truth before and after, and the EC2 calls in between. */
export interface StepCheck {
  before: Truth;
  after: Truth;
  /** The DetachVolume calls EC2 received during the step. */
  detaches?: DetachCall[];
  /** The AttachVolume and DetachVolume calls EC2 received, in order. */
  mutations?: Ec2Mutation[];
  /** Pairs left out of invariant 5 (see reportedIsAttached). */
  pardoned?: ReadonlySet<string>;
}

/** Invariants 1, 2, 3, 5 and 6 across one step (kubelet and administrator changes happen only between steps). */
export function checkStep({ before, after, detaches = [], mutations = [], pardoned = new Set() }: StepCheck): Violation[] {
  return [
    ...exclusiveOnce(after),
    ...mountedNeverDetached(before, after, detaches),
    ...neededNeverDetached(before, after, detaches),
    ...reportedIsAttached(after, pardoned),
    ...attachesOnFreshGround(before, mutations),
  ];
}

/**
 * Invariant 6 as EC2 saw it: walking the step's calls in order from the state before it, an
 * AttachVolume must not name a (volume, instance) EC2 already had attached, nor a device name
 * another volume held on that instance (unless a DetachVolume in between let it go).
 */
function attachesOnFreshGround(before: Truth, mutations: Ec2Mutation[]): Violation[] {
  const pair = (volumeId: string, instanceId: string | undefined) => `${volumeId}|${instanceId ?? ''}`;
  const attached = new Set(before.attachments.filter((a) => a.state === 'attached').map((a) => pair(a.volumeId, a.instanceId)));
  const deviceHolder = new Map(before.attachments.map((a) => [pair(a.device, a.instanceId), a.volumeId]));
  const violations: Violation[] = [];
  for (const call of mutations) {
    if (call.action === 'DetachVolume') {
      attached.delete(pair(call.volumeId, call.instanceId));
      for (const [key, volumeId] of deviceHolder)
        if (volumeId === call.volumeId && key.endsWith(`|${call.instanceId ?? ''}`)) deviceHolder.delete(key);
      continue;
    }
    if (attached.has(pair(call.volumeId, call.instanceId))) {
      violations.push({
        invariant: 6,
        message: `AttachVolume of ${call.volumeId} to ${call.instanceId ?? '?'}, where EC2 already had it attached`,
      });
    }
    const holder = call.device === undefined ? undefined : deviceHolder.get(pair(call.device, call.instanceId));
    if (holder !== undefined && holder !== call.volumeId) {
      violations.push({
        invariant: 6,
        message: `AttachVolume of ${call.volumeId} to ${call.instanceId ?? '?'} as ${call.device ?? '?'}, a name ${holder} holds there`,
      });
    }
  }
  return violations;
}

export function exclusiveOnce(truth: Truth): Violation[] {
  const holders = Map.groupBy(
    truth.attachments.filter((a) => truth.exclusive.has(a.volumeId)),
    (a) => a.volumeId,
  );
  return [...holders]
    .filter(([, list]) => new Set(list.map((a) => a.instanceId)).size > 1)
    .map(([volumeId, list]) => ({
      invariant: 1 as const,
      message: `${volumeId} (RWO) is attached to ${list.map((a) => `${a.instanceId} (${a.state})`).join(' and ')}`,
    }));
}

export function nodeOfInstance(truth: Truth, instanceId: string | undefined): TruthNode | undefined {
  return [...truth.nodes.values()].find((n) => n.instanceId === instanceId);
}

/** Detach calls aimed at (volume, node) pairs for which `protectedIn` holds both before and after the step. */
function forbiddenDetaches(
  before: Truth,
  after: Truth,
  detaches: DetachCall[],
  protectedIn: (t: Truth, volumeId: string, node: TruthNode) => boolean,
) {
  return detaches.flatMap((call) => {
    const candidates =
      call.instanceId === undefined ? [...before.nodes.values()] : [nodeOfInstance(before, call.instanceId)].filter((n) => n !== undefined);
    return candidates
      .filter((node) => {
        const later = after.nodes.get(node.name);
        return later !== undefined && protectedIn(before, call.volumeId, node) && protectedIn(after, call.volumeId, later);
      })
      .map((node) => ({ call, node }));
  });
}

/**
 * An OS still shutting down (`stopping`, `shutting-down`) may still write to its mounted volumes:
 * only `stopped` or `terminated` proves nothing can (DESIGN §6).
 */
const OS_MAY_RUN = new Set([RUNNING, 'stopping', 'shutting-down']);

export function mounted(truth: Truth, volumeId: string, node: TruthNode): boolean {
  const osMayRun = OS_MAY_RUN.has(truth.instanceStates.get(node.instanceId ?? '') ?? '');
  return osMayRun && node.ready && !node.outOfService && node.volumesInUse.some((name) => volumeIdOf(name) === volumeId);
}

function mountedNeverDetached(before: Truth, after: Truth, detaches: DetachCall[]): Violation[] {
  return forbiddenDetaches(before, after, detaches, mounted).map(({ call, node }) => ({
    invariant: 2,
    message: `DetachVolume ${call.volumeId} from ${node.name} while it is mounted there and the node is Ready`,
  }));
}

/** Needed by a scheduled pod and fully attached on a running instance: only a wrong read could make it look unneeded. */
export function needed(truth: Truth, volumeId: string, node: TruthNode): boolean {
  const attached = ec2Attachment(truth, volumeId, node.instanceId)?.state === 'attached';
  const running = truth.instanceStates.get(node.instanceId ?? '') === RUNNING;
  return attached && running && truth.desired.some((p) => p.volumeId === volumeId && p.nodeName === node.name);
}

function neededNeverDetached(before: Truth, after: Truth, detaches: DetachCall[]): Violation[] {
  return forbiddenDetaches(before, after, detaches, (t, v, n) =>
    t === before ? needed(t, v, n) : t.desired.some((p) => p.volumeId === v && p.nodeName === n.name),
  ).map(({ call, node }) => ({
    invariant: 3,
    message: `DetachVolume ${call.volumeId} from ${node.name} while a scheduled pod there still needs it`,
  }));
}

/** A (volume, node) pair, as the oracle remembers pairs. */
export const pairKey = (volumeId: string, nodeName: string) => `${volumeId}|${nodeName}`;

/**
 * A stopped or terminated machine's list goes stale by itself; only running instances are held to
 * it. `pardoned` pairs are ones EC2 lost behind the controller's back (an operator's detach) that
 * it has not yet had the chance to notice: their entries went stale by themselves too.
 */
export function reportedIsAttached(truth: Truth, pardoned: ReadonlySet<string> = new Set()): Violation[] {
  const violations: Violation[] = [];
  for (const node of truth.nodes.values()) {
    if (truth.instanceStates.get(node.instanceId ?? '') !== RUNNING) continue;
    for (const entry of node.volumesAttached) {
      if (pardoned.has(pairKey(volumeIdOf(entry.name) ?? entry.name, node.name))) continue;
      // `detaching` (or `busy`) is no longer attached: the list must have dropped it before DetachVolume.
      const state = ec2Attachment(truth, volumeIdOf(entry.name) ?? '', node.instanceId)?.state;
      if (state === 'attached') continue;
      violations.push({ invariant: 5, message: `${node.name} reports ${entry.name} but EC2 has it ${state ?? 'not attached'} there` });
    }
  }
  return violations;
}

/**
 * Who writes `volumesAttached`: we (controller mode) at EC2's device name, or kcm (attacher mode)
 * with an empty devicePath, as kcm's node status updater does.
 */
export interface ConvergenceOptions {
  nodeStatusBy?: 'controller' | 'kcm';
}

/** Invariant 4: desired equals actual in EC2, and node status and VolumeAttachments say so. */
export function checkConvergence(truth: Truth, options: ConvergenceOptions = {}): Violation[] {
  const violations: string[] = [];
  const wanted = wantedPairs(truth);
  for (const pair of wanted) {
    const node = truth.nodes.get(pair.nodeName);
    const attachment = ec2Attachment(truth, pair.volumeId, node?.instanceId);
    if (attachment?.state !== 'attached')
      violations.push(`${pair.volumeId} is needed on ${pair.nodeName} but EC2 has it ${attachment?.state ?? 'not attached'} there`);
  }
  // A pod on a stopped machine still holds its volume there: not a leak.
  const held = [...wanted, ...truth.desired];
  for (const attachment of truth.attachments) {
    const node = nodeOfInstance(truth, attachment.instanceId);
    if (!held.some((p) => p.volumeId === attachment.volumeId && p.nodeName === node?.name)) {
      violations.push(`${attachment.volumeId} is ${attachment.state} on ${node?.name ?? attachment.instanceId} but no pod there needs it`);
    }
  }
  violations.push(...statusMatches(truth, options.nodeStatusBy === 'kcm'));
  return violations.map((message) => ({ invariant: 4, message }));
}

/** Desired pairs on running instances; an exclusive volume wanted on several nodes counts once, where EC2 has it. */
function wantedPairs(truth: Truth) {
  const running = (p: { nodeName: string }) => truth.instanceStates.get(truth.nodes.get(p.nodeName)?.instanceId ?? '') === RUNNING;
  return [...Map.groupBy(truth.desired, (p) => p.volumeId).values()].flatMap((all) => {
    const pairs = all.filter(running);
    if (all.length < 2 || !truth.exclusive.has(all[0]?.volumeId ?? '')) return pairs;
    // An exclusive volume a pod on a stopped machine still holds stays there: wanted nowhere else.
    const holder = all.find((p) => ec2Attachment(truth, p.volumeId, truth.nodes.get(p.nodeName)?.instanceId));
    if (holder) return running(holder) ? [holder] : [];
    return pairs.slice(0, 1);
  });
}

function statusMatches(truth: Truth, byKcm: boolean): string[] {
  const problems: string[] = [];
  const vas = new Map(truth.volumeAttachments.map((va) => [va.name, va]));
  for (const node of truth.nodes.values()) {
    if (truth.instanceStates.get(node.instanceId ?? '') !== RUNNING) continue;
    const attached = truth.attachments.filter((a) => a.instanceId === node.instanceId && a.state === 'attached');
    const reported = new Map(node.volumesAttached.map((e) => [volumeIdOf(e.name), e.devicePath]));
    for (const a of attached) {
      const expected = byKcm ? '' : a.device;
      if (reported.get(a.volumeId) !== expected)
        problems.push(`${node.name} reports ${a.volumeId} at ${reported.get(a.volumeId) ?? 'nothing'}, EC2 has it at ${a.device}`);
      const va = vas.get(volumeAttachmentName(a.volumeId, node.name));
      if (!va?.attached || va.devicePath !== a.device)
        problems.push(
          `VolumeAttachment of ${a.volumeId} on ${node.name} is ${va ? `attached=${va.attached} at ${va.devicePath ?? '?'}` : 'missing'}`,
        );
    }
    if (node.volumesAttached.length > attached.length)
      problems.push(`${node.name} reports ${node.volumesAttached.length} volumes, EC2 has ${attached.length} attached`);
  }
  const attachedNames = new Set(
    truth.attachments.map((a) => volumeAttachmentName(a.volumeId, nodeOfInstance(truth, a.instanceId)?.name ?? '')),
  );
  for (const va of truth.volumeAttachments) {
    if (va.attached && !attachedNames.has(va.name))
      problems.push(`VolumeAttachment ${va.name} on ${va.nodeName} says attached, EC2 disagrees`);
  }
  return problems;
}
