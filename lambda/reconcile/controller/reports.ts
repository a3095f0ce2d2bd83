/**
 * Controller mode's reports: we are the attach/detach controller, so the node's `volumesAttached`,
 * our own VolumeAttachments and the pods' events follow every change (DESIGN §6, §7).
 */
import type { AttachAction } from '../../core/actions.js';
import { attachFailedEvent, attachSucceededEvent } from '../../core/events.js';
import type { VolumeEvent } from '../../core/types.js';
import { bestEffort, specNameOf, type PassContext } from '../pass/context.js';
import { reportSkippedVolumes } from './skipped-events.js';
import { reportAttachError, syncVolumeAttachment } from './volume-attachments.js';
import type { ModeReports } from '../pass/mode.js';

async function tellPods(ctx: PassContext, action: AttachAction, event: VolumeEvent): Promise<void> {
  for (const pod of action.pods) {
    await bestEffort(ctx, `event ${event.reason} on ${pod.namespace}/${pod.name}`, () => ctx.deps.cluster.recordEvent(pod, event));
  }
}

export const controllerReports: ModeReports = {
  beforeAttach: () => Promise.resolve(undefined),
  attached: async (ctx, action) => {
    await syncVolumeAttachment(ctx, action.volumeId, action.nodeName);
    await tellPods(ctx, action, attachSucceededEvent(specNameOf(ctx, action.volumeId, action.nodeName)));
  },
  attachFailed: async (ctx, action, failure) => {
    await reportAttachError(ctx, action.volumeId, action.nodeName, failure.message);
    await tellPods(ctx, action, attachFailedEvent(specNameOf(ctx, action.volumeId, action.nodeName), failure.message));
  },
  detached: (ctx, action) => syncVolumeAttachment(ctx, action.volumeId, action.nodeName),
  // A detach that failed stays recorded and backs off; the node still lists the volume only if it is attached.
  detachFailed: () => Promise.resolve(),
  settled: (ctx, volumeId, nodeName) => syncVolumeAttachment(ctx, volumeId, nodeName),
  afterExecute: async (ctx) => {
    await ctx.nodeStatus.reportAll();
    await reportSkippedVolumes(ctx);
  },
};
