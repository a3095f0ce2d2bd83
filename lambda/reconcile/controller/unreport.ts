/**
 * Before a detach (forced or not) the volume leaves the node's reported `volumesAttached`, so the
 * kubelet stops treating it as attached before EC2 pulls it. All unreports of one node go out
 * as one write of the node's (atomic) list, through the pass's node-status updater; a detach whose
 * unreport did not succeed stays put.
 */
import type { UnreportAction } from '../../core/actions.js';
import type { NodeName } from '../../core/types.js';
import type { PassContext } from '../pass/state.js';
import type { ActionResult } from '../pass/types.js';
import type { NodeStatusUpdater } from './node-status.js';

export async function executeUnreports(
  ctx: PassContext,
  nodeStatus: NodeStatusUpdater,
  actions: readonly UnreportAction[],
): Promise<ActionResult[]> {
  const byNode = new Map<NodeName, UnreportAction[]>();
  for (const action of actions) byNode.set(action.nodeName, [...(byNode.get(action.nodeName) ?? []), action]);
  const results = await Promise.all([...byNode].map(([nodeName, nodeActions]) => unreportOnNode(ctx, nodeStatus, nodeName, nodeActions)));
  return results.flat();
}

async function unreportOnNode(
  ctx: PassContext,
  nodeStatus: NodeStatusUpdater,
  nodeName: NodeName,
  actions: UnreportAction[],
): Promise<ActionResult[]> {
  const result = (action: UnreportAction, outcome: ActionResult['outcome'], detail: string): ActionResult => ({
    kind: 'unreport',
    volumeId: action.volumeId,
    nodeName,
    outcome,
    detail,
  });
  if (!ctx.deadline.canStart()) return actions.map((a) => result(a, 'deferred', 'no time left in this pass'));
  const unreported = await nodeStatus.unreport(nodeName, actions);
  if (!unreported.ok) return actions.map((a) => result(a, 'failed', `node status not updated, so no detach: ${String(unreported.error)}`));
  const detail =
    unreported.answer === 'node-gone' ? 'the node object is gone: nothing reports the volume' : "removed from the node's reported list";
  return actions.map((a) => result(a, 'ok', detail));
}
