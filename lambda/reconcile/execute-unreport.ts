/**
 * Before a non-forced detach the volume leaves the node's reported `volumesAttached`, so the
 * kubelet stops treating it as attached before EC2 pulls it. All unreports of one node go out
 * as one write of the node's (atomic) list; a detach whose unreport did not succeed stays put.
 */
import type { UnreportAction } from '../core/actions.js';
import { markReported } from '../core/transitions.js';
import type { NodeName } from '../core/types.js';
import { pairKey, type PassContext } from './context.js';
import { onRecord, writeRecord } from './records.js';
import type { ActionResult } from './types.js';

export async function executeUnreports(ctx: PassContext, actions: UnreportAction[]): Promise<ActionResult[]> {
  const byNode = new Map<NodeName, UnreportAction[]>();
  for (const action of actions) byNode.set(action.nodeName, [...(byNode.get(action.nodeName) ?? []), action]);
  const results = await Promise.all([...byNode].map(([nodeName, nodeActions]) => unreportOnNode(ctx, nodeName, nodeActions)));
  return results.flat();
}

async function unreportOnNode(ctx: PassContext, nodeName: NodeName, actions: UnreportAction[]): Promise<ActionResult[]> {
  const result = (action: UnreportAction, outcome: ActionResult['outcome'], detail: string): ActionResult => ({
    kind: 'unreport', volumeId: action.volumeId, nodeName, outcome, detail,
  });
  if (!ctx.deadline.canStart()) return actions.map((a) => result(a, 'deferred', 'no time left in this pass'));
  const leaving = new Set(actions.map((a) => a.uniqueName));
  const base = ctx.reported.get(nodeName) ?? [];
  const next = base.filter((entry) => !leaving.has(entry.name));
  let answer: Awaited<ReturnType<PassContext['deps']['cluster']['setVolumesAttached']>>;
  try {
    answer = await ctx.deps.cluster.setVolumesAttached(nodeName, next, { base });
  } catch (error) {
    return actions.map((a) => result(a, 'failed', `node status not updated, so no detach: ${String(error)}`));
  }
  ctx.reported.set(nodeName, next);
  for (const action of actions) {
    ctx.unreported.add(pairKey(action.volumeId, nodeName));
    await writeRecord(ctx.deps.store, ctx.actual, action.volumeId, ctx.actual.get(action.volumeId),
      onRecord((r) => markReported(r, nodeName, false)));
  }
  const detail = answer === 'node-gone' ? 'the node object is gone: nothing reports the volume' : 'removed from the node\'s reported list';
  return actions.map((a) => result(a, 'ok', detail));
}
