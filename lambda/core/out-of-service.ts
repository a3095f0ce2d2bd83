/**
 * Dead instances free their volumes in seconds (issue 12): when EC2 says a node's instance is
 * `stopped` or `terminated`, the node gets upstream's out-of-service taint, so the attach/detach
 * controller (kcm in attacher mode, our plan in controller mode) detaches at once instead of
 * after maxWaitForUnmount. Kubernetes documents the taint as
 * `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` ("Non-graceful node shutdown").
 *
 * Ours is marked by an annotation naming the instance, so we only ever remove a taint we placed;
 * someone else's out-of-service taint (an operator's, another tool's) is never touched. A taint
 * goes with its node object, so a deleted node needs nothing; a node whose instance runs again
 * loses our taint. `stopping` and `shutting-down` change nothing: EC2 sends another notification
 * when the instance reaches `stopped` or `terminated`, and every full pass looks again.
 */
import type { KubeNode, KubeTaint } from './kube.js';
import { OUT_OF_SERVICE_TAINT } from './nodes.js';
import { parseProviderId } from './provider-id.js';
import type { InstanceState } from './types.js';

export const OUT_OF_SERVICE_VALUE = 'nodeshutdown';
export const OUT_OF_SERVICE_EFFECT = 'NoExecute';
/** On a node we tainted: the instance whose state made us place the taint. */
export const TAINTED_BY_US_ANNOTATION = 'ebs-attach-detach/out-of-service-taint';

export const OUR_TAINT: KubeTaint = { key: OUT_OF_SERVICE_TAINT, value: OUT_OF_SERVICE_VALUE, effect: OUT_OF_SERVICE_EFFECT };

export type TaintDecision =
  { kind: 'taint'; why: string } | { kind: 'untaint'; why: string } | { kind: 'recheck'; why: string } | { kind: 'none'; why: string };

export interface TaintFacts {
  node: KubeNode;
  /** What EC2 said of the node's instance this pass; undefined when it was not asked. */
  instanceState: InstanceState | 'missing' | undefined;
  /** OUT_OF_SERVICE_TAINT=on; off never places a taint (ours are still removed when their instance runs). */
  enabled: boolean;
}

/** The node's own spelling of our taint and our mark, as the node holds them now. */
export function taintedByUs(node: KubeNode): boolean {
  return node.metadata.annotations?.[TAINTED_BY_US_ANNOTATION] !== undefined;
}

function hasOutOfServiceTaint(node: KubeNode): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_TAINT);
}

function isOurTaint(taint: KubeTaint): boolean {
  return taint.key === OUR_TAINT.key && (taint.value ?? '') === OUR_TAINT.value && taint.effect === OUR_TAINT.effect;
}

export function decideOutOfService({ node, instanceState, enabled }: TaintFacts): TaintDecision {
  const name = node.metadata.name ?? '';
  const provider = parseProviderId(node.spec?.providerID);
  if (!provider.ok) return { kind: 'none', why: `node ${name} names no EC2 instance` };
  const instance = provider.instanceId;
  switch (instanceState) {
    case undefined:
      return { kind: 'none', why: `EC2 was not asked about ${instance} this pass` };
    case 'missing':
      return { kind: 'none', why: `EC2 does not know ${instance}; the cloud controller deletes such nodes` };
    case 'pending':
    case 'running':
      return taintedByUs(node)
        ? { kind: 'untaint', why: `instance ${instance} is ${instanceState} again` }
        : { kind: 'none', why: `instance ${instance} is ${instanceState}` };
    case 'stopping':
    case 'shutting-down':
      return { kind: 'recheck', why: `instance ${instance} is ${instanceState}: decided when EC2 reports it stopped or terminated` };
    case 'stopped':
    case 'terminated':
      if (hasOutOfServiceTaint(node)) return { kind: 'none', why: `node ${name} is already out of service` };
      if (!enabled) return { kind: 'none', why: 'OUT_OF_SERVICE_TAINT is off' };
      return { kind: 'taint', why: `EC2 reports instance ${instance} ${instanceState}` };
  }
}

export interface NodeTaintEdit {
  taints: KubeTaint[];
  /** The value of our annotation to set, or null to remove it. */
  mark: string | null;
}

/** The node's taints and our mark after `decision`; undefined when nothing changes. */
export function taintEditOf(node: KubeNode, decision: TaintDecision): NodeTaintEdit | undefined {
  const taints = [...(node.spec?.taints ?? [])];
  if (decision.kind === 'taint') {
    const provider = parseProviderId(node.spec?.providerID);
    return { taints: [...taints, { ...OUR_TAINT }], mark: provider.ok ? provider.instanceId : 'unknown' };
  }
  if (decision.kind !== 'untaint') return undefined;
  // Only the exact taint we place goes; one of the same key that someone put in its place stays.
  return { taints: taints.filter((t) => !isOurTaint(t)), mark: null };
}
