/**
 * Event reasons and texts as upstream's operation executor words them
 * (pkg/volume/util/operationexecutor: `<prefix> for volume %q <suffix>`, where the volume is
 * the PV name, or the pod's volume name for inline volumes, and the suffix of an error is
 * `: <error>`). Note the space before the suffix: upstream's success text ends in a space.
 * The Multi-Attach texts come from the core (`MultiAttachConflictAction.event`).
 */
import type { ClusterEvent } from '../../ports/cluster.js';

export const SUCCESSFUL_ATTACH_VOLUME = 'SuccessfulAttachVolume';
export const FAILED_ATTACH_VOLUME = 'FailedAttachVolume';

/** Go's %q for the names Kubernetes allows (DNS names) is JSON's quoting. */
const quote = (value: string): string => JSON.stringify(value);

export function volumeMessage(prefix: string, volumeSpecName: string, suffix: string): string {
  return `${prefix} for volume ${quote(volumeSpecName)} ${suffix}`;
}

export function attachSucceededEvent(volumeSpecName: string): ClusterEvent {
  return { type: 'Normal', reason: SUCCESSFUL_ATTACH_VOLUME, message: volumeMessage('AttachVolume.Attach succeeded', volumeSpecName, '') };
}

export function attachFailedEvent(volumeSpecName: string, error: string): ClusterEvent {
  return { type: 'Warning', reason: FAILED_ATTACH_VOLUME, message: volumeMessage('AttachVolume.Attach failed', volumeSpecName, `: ${error}`) };
}
