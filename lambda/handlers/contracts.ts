/**
 * The events that start a pass, as the handlers accept them and as the stack routes them: one
 * owner for both sides (the stack's rules import these, the handlers' schemas are built from them).
 */

/** The payload EventBridge Scheduler sends to the scheduled function. */
export const FULL_PASS_INPUT = { pass: 'full' } as const;

/** The payload EventBridge Scheduler sends to the watcher function, on the same schedule. */
export const WATCH_INPUT = { pass: 'watch' } as const;

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
  'Scheduled',
  'Killing',
  'Preempting',
  'NodeNotReady',
  'NodeReady',
  'RegisteredNode',
  'RemovingNode',
  'DeletingNode',
] as const;

/** EC2's instance state-change notification, as EventBridge delivers it. */
export const EC2_SOURCE = 'aws.ec2';
export const EC2_STATE_CHANGE_DETAIL_TYPE = 'EC2 Instance State-change Notification';

/** EC2 instance states after which the instance's volumes may (or soon may) be detached (DESIGN §9). */
export const EC2_STOPPING_STATES = ['stopping', 'stopped', 'shutting-down', 'terminated'] as const;
