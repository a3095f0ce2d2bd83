/**
 * The composition root: SDK clients and adapters built once per execution environment from the
 * validated configuration, injected into the reconcile pass, with telemetry wrapped around each
 * pass. Every runner of the controller builds it here: the Lambda entry files, the CLI, and the
 * local stack that the tests, the fault suite, the demo and the bench share.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoHandoverStore } from './adapters/dynamodb/handover.js';
import { DynamoMassDetachWindow } from './adapters/dynamodb/mass-detach-window.js';
import { DynamoRateBudget } from './adapters/dynamodb/rate-budget.js';
import { DynamoVolumeStore } from './adapters/dynamodb/volume-store.js';
import { DynamoWatcherStore } from './adapters/dynamodb/watcher-store.js';
import { Ec2BlockStorage, type Ec2BlockStorageOptions } from './adapters/ec2/block-storage.js';
import { createEc2Client, type Ec2ClientOptions } from './adapters/ec2/client.js';
import { withoutSdkLogger } from './adapters/sdk-logger.js';
import { createKubeClients, type KubeClientOptions } from './adapters/kubernetes/clients.js';
import { eksTokenProvider } from './adapters/kubernetes/eks-token.js';
import { KubernetesCluster, type KubernetesClusterOptions } from './adapters/kubernetes/kubernetes-cluster.js';
import { KubernetesLeaseLock } from './adapters/kubernetes/lease-lock.js';
import { KubernetesNodeTaints } from './adapters/kubernetes/node-taints.js';
import { kubeConfigForEks, kubeConfigFromFile } from './adapters/kubernetes/kubeconfig.js';
import { systemClock, type Clock } from './clock.js';
import { reconcileSettings, type Config } from './config.js';
import { recordPass, recordPassFailure } from './observability/pass-metrics.js';
import { createTelemetry, type Telemetry } from './observability/telemetry.js';
import { fencedBlockStorage, LeaseFence } from './reconcile/attacher/fence.js';
import { underHandover, type Handover } from './reconcile/attacher/handover.js';
import type { Cluster } from './ports/cluster.js';
import type { HandoverStore } from './ports/handover.js';
import type { LeaseLock } from './ports/lease-lock.js';
import type { WatcherStore } from './ports/watcher-store.js';
import { operatingMode, type ModeDeps } from './reconcile/operating-mode.js';
import { isKubernetesForbidden } from './reconcile/pass/refused.js';
import { DEFAULT_WATCHER_SETTINGS } from './reconcile/watch/settings.js';
import type { Reaction, WatcherReport, WatcherSettings } from './reconcile/watch/types.js';
import { runWatcher } from './reconcile/watch/watcher.js';
import {
  targetKey,
  type Budget,
  type PassOptions,
  type PassPorts,
  type PassReport,
  type ReconcileDeps,
  type Target,
  type Waits,
} from './reconcile/pass/types.js';

/**
 * Every port a pass may use: the shared ones and the Cluster port, whose one adapter serves both
 * modes' roles; the watchers' lease and checkpoints; and the handover's (attacher mode, and wherever
 * the fence is on): its record in the store and the csi-attacher sidecar's Lease, which the CLI's
 * handback and takeover use too.
 */
export type Ports = PassPorts & { cluster: Cluster; watchers: WatcherStore; handover?: HandoverStore; sidecarLease?: LeaseLock };

export interface Controller extends Telemetry {
  config: Config;
  clock: Clock;
  ports: Ports;
  fullPass(budget: Budget, options?: PassOptions): Promise<PassReport>;
  targetedPass(target: Target, budget: Budget, options?: PassOptions): Promise<PassReport>;
  /** A watcher invocation: joins the lease (or ends at once), lists and watches, runs a targeted pass per change until its deadline. */
  watch(budget: Budget): Promise<WatcherReport>;
  /** Closes pooled connections (CLI runs and tests; a Lambda keeps them warm). */
  close(): Promise<void>;
}

/**
 * Client tuning that differs from production's: the fault suite wants one attempt per call (so
 * injected faults reach the controller), short timeouts and tiny list pages.
 */
interface ClientTuning {
  ec2?: Pick<Ec2ClientOptions, 'maxAttempts' | 'requestTimeoutMs'>;
  dynamodb?: { maxAttempts?: number };
  kubernetes?: Pick<KubeClientOptions, 'policy'> & Pick<KubernetesClusterOptions, 'paging' | 'maxConflictRetries'>;
}

/** Seams for local runs and tests; production passes none of them. */
export interface ControllerOverrides {
  /** Logger and metrics; built from the configuration when absent. */
  telemetry?: Telemetry;
  clock?: Clock;
  newId?: () => string;
  ec2Wait?: Ec2BlockStorageOptions['wait'];
  waits?: Partial<Waits>;
  tuning?: ClientTuning;
  /** Wraps the ports every pass uses (fault injection). */
  wrapPorts?: (ports: Ports) => Ports;
  /** Told items done / total of long work (takeover seeding, a pass's actions): the CLI and the bench show it. */
  progress?: ReconcileDeps['progress'];
  /** The watcher's pace, how it idles between its checks (the clock's sleep by default), and who hears of its passes. */
  watcher?: Partial<WatcherSettings> & { idle?: (ms: number) => Promise<void>; onReaction?: (reaction: Reaction) => void };
}

/**
 * Our Lease, read or written longer ago than this, is read (and renewed) again before an EC2
 * mutating call: the sidecar's retry period, so a pass in flight learns of a lost Lease within the
 * time the sidecar's standby needs to notice it is free (docs/lease-fence.md, the bound).
 */
export const FENCE_REREAD_MS = 5_000;

/** Re-reads of a node after another writer changed it between our read and our taint patch. */
const NODE_TAINT_RETRIES = 5;

export function createController(config: Config, overrides: ControllerOverrides = {}): Controller {
  const telemetry = overrides.telemetry ?? createTelemetry(config);
  const clock = overrides.clock ?? systemClock;
  const newId = overrides.newId ?? randomUUID;
  const tuning = overrides.tuning ?? {};
  const kubeClients = createKubeClients(kubeConfigOf(config), { clock, policy: { ...config.kubeApi, ...tuning.kubernetes?.policy } });
  const dynamo = createDynamoClient(config, tuning.dynamodb);
  // One budget for every invocation (and, given a shared budget table, every cluster of the account and region).
  const budget = new DynamoRateBudget({ client: dynamo, region: config.region, clock, ...config.ec2Budget });
  const ec2 = createEc2Client({ ...awsOf(config), ...endpoint(config.endpoints.ec2), ...tuning.ec2, budget });
  const handoverStore = new DynamoHandoverStore({ client: dynamo, tableName: config.tableName });
  const sidecarLease = new KubernetesLeaseLock(kubeClients.coordination, config.sidecarLease);
  const fence =
    config.leaseFence &&
    new LeaseFence({
      lock: sidecarLease,
      store: handoverStore,
      identity: config.leaseFence.identity,
      durationSeconds: config.leaseFence.durationSeconds,
      rereadMs: FENCE_REREAD_MS,
      whenAbsent: config.sidecarGone ? 'create' : 'refuse',
      now: () => clock.now(),
    });
  // A shadow checks the sidecar's Lease exists, unless the operator said no sidecar runs.
  const sidecarLeaseReader =
    config.mode === 'attacher' && !config.sidecarGone
      ? { where: `${config.sidecarLease.namespace}/${config.sidecarLease.name}`, lock: sidecarLease }
      : undefined;
  const handover: Handover | undefined =
    config.mode === 'attacher' || fence
      ? { store: handoverStore, ...(fence ? { fence } : {}), marginMs: config.plan.leaseMarginMs, now: () => clock.now() }
      : undefined;
  const ec2Storage = new Ec2BlockStorage({
    client: ec2,
    clock,
    ...(overrides.ec2Wait === undefined ? {} : { wait: overrides.ec2Wait }),
  });
  const built: Ports = {
    cluster: new KubernetesCluster(kubeClients, clock, {
      ...pick(tuning.kubernetes, 'paging'),
      ...pick(tuning.kubernetes, 'maxConflictRetries'),
    }),
    store: new DynamoVolumeStore({ client: dynamo, tableName: config.tableName, clock: () => clock.now() }),
    blockStorage: fence ? fencedBlockStorage(ec2Storage, fence) : ec2Storage,
    massDetachWindow: new DynamoMassDetachWindow({ client: dynamo, tableName: config.tableName }),
    nodeTaints: new KubernetesNodeTaints(kubeClients.core, tuning.kubernetes?.maxConflictRetries ?? NODE_TAINT_RETRIES),
    watchers: new DynamoWatcherStore({ client: dynamo, tableName: config.tableName }),
    ...(handover ? { handover: handoverStore, sidecarLease } : {}),
  };
  const ports = overrides.wrapPorts?.(built) ?? built;
  const settings = { ...reconcileSettings(config), ...overrides.waits };

  // The one place the operating mode is chosen: what is desired and what is reported.
  const mode = operatingMode(config.mode);
  const depsFor = (passId: string): ModeDeps => ({
    ...ports,
    settings,
    clock: () => clock.now(),
    sleep: (ms) => clock.sleep(ms),
    newId,
    log: telemetry.logger.createChild({ persistentKeys: { passId } }),
    ...(overrides.progress === undefined ? {} : { progress: overrides.progress }),
    ...(sidecarLeaseReader === undefined ? {} : { leaseCheck: sidecarLeaseReader }),
  });
  const observed = async (passId: string, label: Record<string, unknown>, run: (deps: ModeDeps) => Promise<PassReport>) => {
    const deps = depsFor(passId);
    try {
      const report = await run(deps);
      recordPass(telemetry.metrics, report);
      deps.log.info('pass finished', { ...label, ...outline(report) });
      return report;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A Kubernetes call refused the role (the attacher's Lease) stops the pass: the UnauthorizedCalls alarm hears of it too.
      recordPassFailure(telemetry.metrics, isKubernetesForbidden(message));
      deps.log.error('pass failed', { ...label, error: message });
      throw error;
    }
  };
  // A dry run (asked for, or every pass under WRITES=off) changes nothing, the sidecar's Lease included.
  // `readsFirst`: the pass reads while its handover entry is written (only a VolumeAttachment's pass can).
  const guarded = (
    budget: Budget,
    options: PassOptions & { passId: string },
    run: (options: PassOptions) => Promise<PassReport>,
    readsFirst = false,
  ) => {
    if (!config.writes || options.dryRun === true) return run({ ...options, dryRun: true });
    return handover ? underHandover(handover, budget, options, run, readsFirst) : run(options);
  };
  const targetedPass: Controller['targetedPass'] = (target, budget, options = {}) => {
    const passId = options.passId ?? newId();
    const label = { pass: 'targeted', target: targetKey(target) };
    return observed(passId, label, (deps) =>
      guarded(budget, { ...options, passId }, (run) => mode.targetedPass(deps, target, budget, run), target.kind === 'volumeAttachment'),
    );
  };
  const { idle, onReaction, ...pace } = overrides.watcher ?? {};
  return {
    ...telemetry,
    config,
    clock,
    ports,
    fullPass: (budget, options = {}) => {
      const passId = options.passId ?? newId();
      return observed(passId, { pass: 'full' }, (deps) =>
        guarded(budget, { ...options, passId }, (run) => mode.fullPass(deps, budget, run)),
      );
    },
    targetedPass,
    watch: (budget) =>
      runWatcher(
        {
          cluster: ports.cluster,
          watchers: ports.watchers,
          clock: () => clock.now(),
          idle: idle ?? ((ms) => clock.sleep(ms)),
          newId,
          log: telemetry.logger,
          runTarget: (target, passBudget) => targetedPass(target, passBudget),
          settings: { ...DEFAULT_WATCHER_SETTINGS, ...pace },
          ...(onReaction === undefined ? {} : { onReaction }),
        },
        mode.watch,
        budget,
      ),
    close: async () => {
      await kubeClients.close();
      dynamo.destroy();
      ec2.destroy();
    },
  };
}

/** Region and a local run's static credentials; in Lambda the default provider chain supplies the role's. */
function awsOf(config: Config) {
  return { region: config.region, ...(config.credentials === undefined ? {} : { credentials: config.credentials }) };
}

/** The DynamoDB client of the state table: the controller's, and `init`'s (which needs no cluster). */
export function createDynamoClient(config: Config, tuning: ClientTuning['dynamodb'] = {}): DynamoDBClient {
  return withoutSdkLogger(new DynamoDBClient({ ...awsOf(config), ...endpoint(config.endpoints.dynamodb), ...tuning }));
}

function kubeConfigOf(config: Config) {
  if (config.kube.kind === 'kubeconfig') return kubeConfigFromFile(config.kube.path);
  const token = eksTokenProvider({ clusterName: config.clusterName, region: config.region, credentials: defaultProvider() });
  return kubeConfigForEks({ clusterName: config.clusterName, endpoint: config.kube.endpoint, caData: config.kube.caData, token });
}

function endpoint(url: string | undefined): { endpoint?: string } {
  return url === undefined ? {} : { endpoint: url };
}

/** `{ [key]: value }` when the value is set, `{}` otherwise (options objects carry no undefined). */
function pick<T extends object, K extends keyof T>(from: T | undefined, key: K): Partial<Pick<T, K>> {
  return from?.[key] === undefined ? {} : ({ [key]: from[key] } as Partial<Pick<T, K>>);
}

/** The log line that sums up a pass. */
function outline(report: PassReport): Record<string, unknown> {
  const count = (outcome: string) => report.results.filter((r) => r.outcome === outcome).length;
  return {
    durationMs: report.durationMs,
    ...(report.fenced === undefined ? {} : { fenced: report.fenced }),
    ...(report.writesOff === undefined ? {} : { writesOff: report.writesOff }),
    converged: report.converged,
    clusterComplete: report.clusterComplete,
    verified: report.verified,
    actions: report.actions.length,
    ok: count('ok'),
    failed: count('failed'),
    deferred: count('deferred'),
    heldBack: report.heldBack.length,
    desired: report.desiredAttachments,
    actual: report.actualAttachments,
    problems: report.problems.length,
    skipped: report.skipped.length,
    notAttached: report.notAttached.length,
  };
}
