/**
 * Metric names shared by the handlers (which emit them in embedded metric format) and the
 * stack (which alarms on them and graphs them). Every metric carries the `ClusterName`
 * dimension; metrics listed with extra dimensions carry those as well.
 */
export const METRICS_NAMESPACE = 'EbsAttachDetach';

/**
 * POWERTOOLS_SERVICE_NAME of every function. Powertools Metrics adds it to every metric as the
 * `service` dimension, so the alarms and the dashboard must name it too.
 */
export const SERVICE_NAME = 'ebs-attach-detach';

export const Metric = {
  /** Milliseconds; dimension Pass = full | targeted. */
  PassDuration: 'PassDuration',
  /** Count; dimensions Kind = attach | detach | unreport | resolve, Outcome = ok | failed | deferred. */
  Actions: 'Actions',
  /** Milliseconds from AttachVolume to `attached`. */
  AttachLatency: 'AttachLatency',
  /** Milliseconds from DetachVolume to `detached`. */
  DetachLatency: 'DetachLatency',
  /** Count; dimension Trigger = out-of-service | unmount-timeout | instance-stopped | instance-terminated | stuck-attach. */
  ForcedDetaches: 'ForcedDetaches',
  /** Count of Multi-Attach errors raised. */
  MultiAttachConflicts: 'MultiAttachConflicts',
  /** Count of EC2 calls answered RequestLimitExceeded. */
  Ec2Throttles: 'Ec2Throttles',
  /** Count of operations found past their lease (a Lambda died mid-operation). */
  ExpiredOperations: 'ExpiredOperations',
  /** Gauges, per pass. */
  DesiredAttachments: 'DesiredAttachments',
  ActualAttachments: 'ActualAttachments',
  /** Count of detaches the mass-detach guard held back. */
  DetachesHeldBack: 'DetachesHeldBack',
  /** Count of malformed events, objects or items skipped; dimension Source = event | kubernetes | dynamodb. */
  Rejected: 'Rejected',
  /**
   * Count per shadow pass (attacher mode, dry run); dimension Verdict = one of SHADOW_VERDICTS
   * (core/attacher/shadow.ts), each sent every shadow pass, zeros included.
   */
  ShadowVerdicts: 'ShadowVerdicts',
  /** Count per attacher-mode full pass: attachments EC2 shows that no VolumeAttachment asks for (reported, never detached by us). */
  UnwantedAttachments: 'UnwantedAttachments',
  /**
   * Count per pass under the lease fence: 0 while we hold the Lease, 1 when the pass only planned;
   * dimension State = one of FENCE_STATES (core/attacher/handover.ts: held | waiting | failed-back |
   * no-lease | lost-race); the Lease's holder rides along as the property `holder`.
   */
  Fenced: 'Fenced',
  /** Count of passes that aborted (cluster or store unreadable). */
  PassFailures: 'PassFailures',
  /** Count per pass of calls refused the role: EC2 `UnauthorizedOperation` (or no grant on a volume's KMS key), Kubernetes 403. */
  UnauthorizedCalls: 'UnauthorizedCalls',
  /** Count, per watcher invocation that watched (sent when it ends): none for a while means no watcher runs. */
  WatcherRuns: 'WatcherRuns',
  /** Count per watcher: changes received, and targeted passes run for them. */
  WatchChanges: 'WatchChanges',
  WatchPasses: 'WatchPasses',
  /** Count per watcher: streams cut after saying nothing for the stall bound, and lists after a 410. */
  WatchStalls: 'WatchStalls',
  WatchRelists: 'WatchRelists',
  /** Count per watcher: targets given up after repeated failed passes (left to the full pass). */
  WatchAbandoned: 'WatchAbandoned',
  /** Milliseconds from a change's arrival to the start of its pass, the largest of a watcher. */
  WatchQueueWait: 'WatchQueueWait',
} as const;

export type MetricName = (typeof Metric)[keyof typeof Metric];
