/**
 * The invariants judged at the very moment EC2 carries out a call (or the API server a write),
 * against ground truth at that moment, rather than around a whole step: pure functions of the
 * truth, the truth when the step began, and what the oracle remembers of earlier moments.
 */
import { volumeIdOf } from '../../lambda/core/volume-id.js';
import { mounted, needed, nodeOfInstance, pairKey, type Violation } from './checks.js';
import type { Truth } from './truth.js';

/** When each (volume, node) pair mounted somewhere stopped being needed, as the oracle saw it (`volumeId|node`). */
export type UnneededSince = Map<string, number>;

export { pairKey };

/** Remembers when each mounted pair stopped being needed; a pair needed again starts over. */
export function observeUnneeded(truth: Truth, since: UnneededSince): void {
  const desired = new Set(truth.desired.map((p) => pairKey(p.volumeId, p.nodeName)));
  for (const node of truth.nodes.values()) {
    for (const name of node.volumesInUse) {
      const key = pairKey(volumeIdOf(name) ?? name, node.name);
      if (desired.has(key)) since.delete(key);
      else if (!since.has(key)) since.set(key, truth.at);
    }
  }
  for (const key of desired) since.delete(key);
}

export interface DetachFacts {
  volumeId: string;
  instanceId: string | undefined;
  /** Ground truth just before EC2 carries the DetachVolume out. */
  now: Truth;
  /** Ground truth when the step began. */
  stepStart: Truth;
  unneededSince: UnneededSince;
  maxWaitForUnmountMs: number;
}

/**
 * Invariant 2 at the DetachVolume: a volume mounted on a running, in-service node may go only if
 * the node is not Ready and strictly more than maxWaitForUnmount has passed since the volume
 * stopped being needed there (the controller's own clock starts no earlier). Invariant 3: a volume
 * a scheduled pod needed when the step began, and still needs, is never detached.
 */
export function detachViolations(facts: DetachFacts): Violation[] {
  const { now, volumeId } = facts;
  const node = nodeOfInstance(now, facts.instanceId);
  if (!node) return [];
  const violations: Violation[] = [];
  if (mounted(now, volumeId, { ...node, ready: true })) {
    const since = facts.unneededSince.get(pairKey(volumeId, node.name));
    if (node.ready) {
      violations.push({
        invariant: 2,
        message: `DetachVolume ${volumeId} from ${node.name} while it is mounted there and the node is Ready`,
      });
    } else if (since !== undefined && now.at - since <= facts.maxWaitForUnmountMs) {
      violations.push({
        invariant: 2,
        message: `DetachVolume ${volumeId} from not-Ready ${node.name} where it is mounted, ${now.at - since} ms after it became unneeded (maxWaitForUnmount ${facts.maxWaitForUnmountMs} ms must pass, strictly)`,
      });
    }
  }
  const before = facts.stepStart.nodes.get(node.name);
  const wanted = now.desired.some((p) => p.volumeId === volumeId && p.nodeName === node.name);
  if (before && wanted && needed(facts.stepStart, volumeId, before)) {
    violations.push({ invariant: 3, message: `DetachVolume ${volumeId} from ${node.name} while a scheduled pod there still needs it` });
  }
  return violations;
}
