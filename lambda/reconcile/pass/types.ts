/**
 * What every pass needs (the store, EC2, settings, a clock) and what it hands back (a report). Each
 * mode adds the Cluster port of its role (controller/deps.ts, attacher/deps.ts); the shared
 * machinery never talks to Kubernetes but through the mode. Nothing here does I/O.
 */
import type { Action, Deferred, HeldBack } from '../../core/actions.js';
import type { PlanConfig } from '../../core/config.js';
import type { CoverageSettings } from '../../core/coverage.js';
import type { DetachTrigger } from '../../core/actions.js';
import type { FenceState } from '../../core/attacher/handover.js';
import type { ShadowComparison } from '../../core/attacher/shadow.js';
import type { NotAttached } from '../../core/convergence.js';
import type { KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment } from '../../core/kube.js';
import type { InstanceId, NodeName, SkippedVolume, VolumeId } from '../../core/types.js';
import type { BlockStorage } from '../../ports/block-storage.js';
import type { MassDetachWindow } from '../../ports/mass-detach-window.js';
import type { NodeTaints } from '../../ports/node-taints.js';
import type { VolumeStore } from '../../ports/volume-store.js';
import type { WatcherStore } from '../../ports/watcher-store.js';

/** The ports every pass shares, whatever its mode. */
export interface PassPorts {
  store: VolumeStore;
  blockStorage: BlockStorage;
  /** Places and removes the out-of-service taint of dead instances; absent: no taint is written. */
  nodeTaints?: NodeTaints;
  /** The mass-detach window every invocation shares; absent: the guard holds per pass only. */
  massDetachWindow?: MassDetachWindow;
  /** The watchers' lease, checkpoints and give-up mark: a full pass reads them to decide whether it may be covered; absent: every pass is complete. */
  watchers?: WatcherStore;
}

/** The slice of Powertools' Logger a pass writes to (tests pass a recorder). */
interface PassLog {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface ReconcileSettings {
  plan: PlanConfig;
  /** A full pass verifies against EC2 when the last verification is older than this. */
  syncPeriodMs: number;
  /** How often a pass must be complete while a watcher covers, and how many slices a covered verification rolls through (core/coverage.ts). */
  coverage: CoverageSettings;
  /** EC2 operations in flight at once within one pass. */
  maxConcurrentOperations: number;
  /** Longest a pass waits for one attach to reach `attached` before leaving it to a later pass. */
  maxAttachWaitMs: number;
  /** Longest a pass waits for one detach to reach `detached`. */
  maxDetachWaitMs: number;
  /** Time kept back before the deadline to write down what was started. */
  reserveMs: number;
  /** OUT_OF_SERVICE_TAINT: taint nodes whose instance EC2 shows stopped or terminated (on unless false). */
  outOfServiceTaint?: boolean;
  /** Attacher mode: how long a pod's `Scheduled` event waits for kcm's VolumeAttachments to appear. */
  attacherWaitMs: number;
  /** Attacher mode: how long an EC2 event's pass follows a dead instance's VolumeAttachments (kcm deletes, we detach, kcm re-creates, we attach). */
  outOfServiceFollowMs: number;
  /** KMS_KEY_ARNS: the keys our role may create EC2's grant on; the shadow's preflight names an attach under any other (unset: none). */
  kmsKeyArns?: readonly string[];
}

export type Waits = Pick<ReconcileSettings, 'maxAttachWaitMs' | 'maxDetachWaitMs' | 'reserveMs'>;

export interface ReconcileDeps extends PassPorts {
  settings: ReconcileSettings;
  clock: () => number;
  /** Waits on the pass's clock (a poll's pause). */
  sleep: (ms: number) => Promise<void>;
  newId: () => string;
  log: PassLog;
  /** Items done of a phase's total (`seeding`, `actions`), for a caller that shows long work advancing. */
  progress?: (phase: string, done: number, total: number) => void;
}

/** What an event names: the pass reads only around it. */
export type Target =
  | {
      kind: 'pod';
      namespace: string;
      name: string;
      /** The node the event says the pod was bound to: a hint read alongside the pod, never trusted over the pod's own spec. */
      nodeHint?: NodeName;
    }
  | { kind: 'node'; name: NodeName }
  | { kind: 'instance'; instanceId: InstanceId }
  | { kind: 'volume'; volumeId: VolumeId }
  /**
   * One VolumeAttachment by name (attacher mode's watcher: kcm created, changed or is deleting it).
   * `seen`: the object as the watch delivered it, acted on instead of a read (external-attacher
   * acts on its informer's copy); every write to it is guarded by its resourceVersion.
   */
  | {
      kind: 'volumeAttachment';
      name: string;
      seen?: KubeVolumeAttachment;
      /**
       * The PV, CSINode and Node it names as the watcher's caches hold them (attacher/watch.ts): an
       * attach reads them from there instead of the API server. Never used for a detach.
       */
      known?: KnownObjects;
    };

/** Objects a VolumeAttachment names, already at hand (the watcher's caches). */
export interface KnownObjects {
  pvs: KubePv[];
  csiNodes: KubeCsiNode[];
  nodes: KubeNode[];
}

/** A target's stable key: one batch runs one pass per target, and logs name it. */
export function targetKey(target: Target): string {
  switch (target.kind) {
    case 'pod':
      return `pod/${target.namespace}/${target.name}`;
    case 'node':
      return `node/${target.name}`;
    case 'instance':
      return `instance/${target.instanceId}`;
    case 'volume':
      return `volume/${target.volumeId}`;
    case 'volumeAttachment':
      return `volumeattachment/${target.name}`;
  }
}

/** The time a pass may use: it starts no new work past `deadline` minus the reserve. */
export interface Budget {
  /** Epoch ms by which the pass must have returned. */
  deadline: number;
  /** Epoch ms at which the invocation itself ends (Lambda's timeout); the deadline when there is none. */
  endsAt?: number;
  /** Aborted by the runtime (middy's early timeout) when time is up. */
  signal?: AbortSignal;
}

type Outcome = 'ok' | 'failed' | 'deferred';

/** Builds one action's result: its outcome, why, and any extras (latency, trigger, throttling). */
export type ResultOf = (outcome: Outcome, detail: string, extra?: Partial<ActionResult>) => ActionResult;

/** What became of one planned action. */
export interface ActionResult {
  kind: Action['kind'];
  volumeId: VolumeId;
  nodeName: NodeName;
  outcome: Outcome;
  detail: string;
  /** AttachVolume → attached, DetachVolume → detached. */
  latencyMs?: number;
  /** For detaches that did not wait for an unmount. */
  forcedTrigger?: Exclude<DetachTrigger, 'unmounted' | 'released'>;
  throttled?: boolean;
  /** EC2 refused the role (UnauthorizedOperation, or no grant on the volume's KMS key). */
  unauthorized?: boolean;
}

export interface PassOptions {
  /** Plan only: read, plan and report what would be done, change nothing. */
  dryRun?: boolean;
  /**
   * Attacher mode, with `dryRun`: EC2 dry-runs each VolumeAttachment's next call (the shadow's
   * preflight). Asked by the CLI's shadow and takeover, not by every scheduled shadow pass: each
   * dry run costs a token of the shared EC2 budget.
   */
  preflight?: boolean;
  /** The id logs and the report carry (one is made up when absent). */
  passId?: string;
  /** A full pass reads the whole cluster whatever watcher covers it (the CLI's `pass`, a cluster event's fallback, the bench's "before"). */
  complete?: boolean;
  /**
   * Whether the pass may act, still being decided (attacher mode: the handover entry and the lease
   * fence, written while the pass reads): false makes it a dry run. A pass body that reads before it
   * is admitted says so (runPass's `readsFirst`); any other waits for this before it starts.
   */
  admission?: Promise<boolean>;
}

export interface PassReport {
  passId: string;
  kind: 'full' | 'targeted';
  target?: Target;
  startedAt: number;
  durationMs: number;
  dryRun: boolean;
  /** False when the cluster read failed or was partial: the plan then detached nothing. */
  clusterComplete: boolean;
  /** Why the cluster could not be read (the pass then changed nothing on its account). */
  clusterError?: string;
  /** LEASE_FENCE: why we do not hold the sidecar's Lease (the pass then only planned, as a dry run). */
  fenced?: string;
  /** LEASE_FENCE: how the pass stood with the fence (the `Fenced` metric), and who held the Lease when not us. */
  fence?: { state: FenceState; holder?: string };
  /** Why the pass only planned: a handback turned writes off in the store. */
  writesOff?: string;
  verified: boolean;
  seeded: boolean;
  /** A full pass: covered (a live watcher covers the cluster; nothing listed; `healed`: nodes whose targeted pass it ran for what EC2 contradicted), or complete and why. */
  coverage?: { covered: true; watcher: string; healed: number } | { covered: false; why: string };
  /** A covered pass (see `coverage`). */
  covered?: boolean;
  /** A takeover pass: claimed volumes it took over, and how many it left to the next pass (then it planned nothing). */
  takeover?: { done: number; left: number };
  desiredAttachments: number;
  actualAttachments: number;
  actions: Action[];
  heldBack: HeldBack[];
  /** What the plan left alone this pass, and why. */
  deferred: Deferred[];
  results: ActionResult[];
  expiredOperations: number;
  /** Malformed objects, skipped volumes and corrupt items, each one sentence. */
  problems: { source: 'kubernetes' | 'dynamodb'; message: string }[];
  /** Reporting steps that failed (node status, VolumeAttachments, events). */
  reportErrors: string[];
  /** Complete full passes: attachments EC2 shows that no VolumeAttachment (attacher mode) or node status (controller mode) names (left attached). */
  unwantedAttachments?: number;
  /** Calls EC2 or the Kubernetes API refused the role (UnauthorizedOperation, 403 Forbidden). */
  unauthorizedCalls: number;
  /** Pod volumes the desired state leaves out, each with its code and reason (unbound claim, unmanaged node, …). */
  skipped: SkippedVolume[];
  /** Desired attachments that ended the pass not attached to their node's instance or not reported on the node. */
  notAttached: NotAttached[];
  /**
   * The cluster read was complete, every action succeeded, nothing was held back or deferred, no
   * Multi-Attach conflict, no pod volume skipped, and `notAttached` is empty. A dry run converged
   * only when it would do nothing.
   */
  converged: boolean;
  /** Attacher mode, full dry runs of a complete read: the sidecar's VolumeAttachments beside EC2 and our plan (issue #12). */
  shadow?: ShadowComparison;
}
