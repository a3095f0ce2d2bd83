/** The pure core: vocabulary, desired state, plan, node reports, record transitions. */
export * from './types.js';
export * from './kube.js';
export * from './actions.js';
export * from './config.js';
export * from './backoff.js';
export { parseVolumeId, uniqueNameFor, volumeIdOf, isVolumeId, type ParsedVolumeId } from './volume-id.js';
export { parseProviderId, type ParsedProviderId } from './provider-id.js';
export { isPodTerminated, podRefOf } from './pods.js';
export { accessModesOf, allowsMultiAttach } from './access-modes.js';
export { buildNodeViews, isMounted, MANAGED_ANNOTATION, nodeViewOf, OUT_OF_SERVICE_TAINT } from './nodes.js';
export { buildDesiredState, type BuildOptions } from './desired-state.js';
export { attachFailedEvent, attachSucceededEvent, FAILED_ATTACH_VOLUME, multiAttachMessage, SUCCESSFUL_ATTACH_VOLUME, volumeSpecName, type VolumeEvent } from './events.js';
export { decideDetach, type DetachDecision, type DetachFacts } from './detach-decision.js';
export { exemptFromMassGuard, inScope, INCOMPLETE_INPUT, massDetachGuard, nodeInDetachScope } from './guards.js';
export { plan } from './plan.js';
export { nodeReports, type NodeReport } from './report.js';
export * from './transitions.js';
