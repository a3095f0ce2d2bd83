/**
 * Runtime contracts the stack shares with the handlers and the event exporter: where the
 * handler entries live, what the exporter puts on the bus, and which events start a pass.
 */
import path from 'node:path';

/** Repository root: bundling resolves entries and the lock file from here, whatever the cwd. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** Handler entry files (each exports `handler`), relative to the repository root. */
export const HANDLER_ENTRIES = {
  scheduled: 'lambda/handlers/scheduled.ts',
  clusterEvent: 'lambda/handlers/cluster-event.ts',
  ec2Event: 'lambda/handlers/ec2-event.ts',
} as const;

/**
 * POWERTOOLS_SERVICE_NAME of every function. Powertools Metrics adds it to every metric as the
 * `service` dimension, so the alarms and the dashboard must name it too.
 */
export const SERVICE_NAME = 'ebs-attach-detach';

/** The payload EventBridge Scheduler sends to the scheduled function. */
export const FULL_PASS_INPUT = { pass: 'full' } as const;

/** What kubernetes-event-exporter's EventBridge sink is configured to send (event-exporter-values.yaml). */
export const EXPORTER_SOURCE = 'kubernetes-event-exporter';
export const EXPORTER_DETAIL_TYPE = 'Kubernetes Event';

/** Kinds of `involvedObject` whose events can change where volumes must be attached. */
export const CLUSTER_EVENT_KINDS = ['Pod', 'Node'] as const;

/**
 * Event reasons that hint a volume must move: a pod was placed, stopped or preempted, or a node
 * changed readiness, joined or is leaving. Everything else waits for the next full pass.
 */
export const CLUSTER_EVENT_REASONS = [
  'Scheduled', 'Killing', 'Preempting',
  'NodeNotReady', 'NodeReady', 'RegisteredNode', 'RemovingNode', 'DeletingNode',
] as const;

/** EC2 instance states after which the instance's volumes may (or soon may) be detached. */
export const EC2_STOPPING_STATES = ['stopping', 'stopped', 'shutting-down', 'terminated'] as const;
