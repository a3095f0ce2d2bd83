/**
 * Dead instances free their volumes in seconds: after EC2 was asked about the pass's instances,
 * each node read this pass is tainted out of service (or our taint removed) as the core decides
 * (core/out-of-service.ts), before the plan, so in controller mode the same pass already detaches
 * without waiting for maxWaitForUnmount. Each write re-decides on the live node. A failure is
 * written down and never stops the pass: the next pass or event tries again.
 */
import type { KubeNode } from '../../core/kube.js';
import { OUT_OF_SERVICE_TAINT } from '../../core/nodes.js';
import { decideOutOfService, taintEditOf } from '../../core/out-of-service.js';
import { instanceStateOf } from '../../core/observed.js';
import { parseProviderId } from '../../core/provider-id.js';
import type { PassContext } from './state.js';
import { bestEffort } from './context.js';

export async function markOutOfService(ctx: PassContext, nodes: readonly KubeNode[]): Promise<void> {
  const writer = ctx.deps.nodeTaints;
  if (writer === undefined || ctx.observations.instances === undefined) return;
  const enabled = ctx.deps.settings.outOfServiceTaint !== false;
  for (const node of nodes) {
    const name = node.metadata.name;
    const provider = parseProviderId(node.spec?.providerID);
    if (name === undefined || !provider.ok) continue;
    const instanceState = instanceStateOf(ctx.observations, provider.instanceId);
    const decision = decideOutOfService({ node, instanceState, enabled });
    if (decision.kind === 'recheck')
      ctx.deps.log.info('instance in transition; out-of-service decided later', { node: name, why: decision.why });
    if (decision.kind !== 'taint' && decision.kind !== 'untaint') continue;
    await bestEffort(ctx, `out-of-service taint of node ${name}`, async () => {
      let taints = node.spec?.taints ?? [];
      const result = await writer.editTaints(name, (live) => {
        const edit = taintEditOf(live, decideOutOfService({ node: live, instanceState, enabled }));
        if (edit !== undefined) taints = edit.taints;
        return edit;
      });
      if (result !== 'updated') return;
      ctx.deps.log.info(decision.kind === 'taint' ? 'node tainted out of service' : 'our out-of-service taint removed', {
        node: name,
        why: decision.why,
      });
      const view = ctx.desired.nodes.get(name);
      if (view) ctx.desired.nodes.set(name, { ...view, outOfService: taints.some((t) => t.key === OUT_OF_SERVICE_TAINT) });
    });
  }
}
