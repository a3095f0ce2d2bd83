/**
 * Pods whose volume source can never be attached (an invalid EBS volume id) are told so with the
 * event the builder chose; the Cluster port aggregates repeats, as upstream's recorder does.
 */
import type { PassContext } from '../pass/state.js';
import { bestEffort } from '../pass/context.js';
import type { ControllerSide } from './side.js';

export async function reportSkippedVolumes(ctx: PassContext, side: ControllerSide): Promise<void> {
  for (const skipped of ctx.desired.skipped) {
    const { event, pod } = skipped;
    if (event === undefined) continue;
    await bestEffort(ctx, `${event.reason} event on ${pod.namespace}/${pod.name}`, () => side.cluster.recordEvent(pod, event));
  }
}
