/**
 * The composition root: configuration read once, SDK clients and adapters built once per cold
 * start, injected into the reconcile pass; telemetry wrapped around each pass. Handlers and the
 * CLI get everything from here and hold no logic of their own.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoVolumeStore } from './adapters/dynamodb/volume-store.js';
import { Ec2BlockStorage, type Ec2BlockStorageOptions } from './adapters/ec2/block-storage.js';
import { createEc2Client } from './adapters/ec2/client.js';
import { TokenBucketLimiter } from './adapters/ec2/rate-limit.js';
import { createKubeClients, eksTokenProvider, KubernetesCluster, kubeConfigForEks, kubeConfigFromFile } from './adapters/kubernetes/index.js';
import { loadConfig, type Config, type Runtime } from './config.js';
import { METRICS_NAMESPACE } from './observability/metric-names.js';
import { recordPass, recordPassFailure } from './observability/pass-metrics.js';
import { createTelemetry, type Telemetry } from './observability/telemetry.js';
import { runFullPass } from './reconcile/full-pass.js';
import { runTargetedPass } from './reconcile/targeted-pass.js';
import { targetKey } from './reconcile/targets.js';
import { DEFAULT_WAITS, type Budget, type PassOptions, type PassReport, type Ports, type ReconcileDeps, type Target, type Waits } from './reconcile/types.js';

export interface Controller extends Telemetry {
  config: Config;
  ports: Ports;
  fullPass(budget: Budget, options?: PassOptions): Promise<PassReport>;
  targetedPass(target: Target, budget: Budget, options?: PassOptions): Promise<PassReport>;
  /** Closes pooled connections (CLI runs and tests; a Lambda keeps them warm). */
  close(): Promise<void>;
}

/** Seams for tests and local runs: a clock, faster EC2 polling, shorter waits. */
export interface ControllerOverrides {
  /** Logger and metrics the handlers' middlewares already hold. */
  telemetry?: Telemetry;
  clock?: () => number;
  ec2Wait?: Ec2BlockStorageOptions['wait'];
  waits?: Partial<Waits>;
}

export function createController(config: Config, overrides: ControllerOverrides = {}): Controller {
  const telemetry = overrides.telemetry ?? createTelemetry(config);
  const clock = overrides.clock ?? Date.now;
  const kubeClients = createKubeClients(kubeConfigOf(config));
  const dynamo = new DynamoDBClient({ region: config.region });
  const ec2 = createEc2Client({ region: config.region });
  const ports: Ports = {
    cluster: new KubernetesCluster(kubeClients),
    store: new DynamoVolumeStore({ client: dynamo, tableName: config.tableName, clock }),
    blockStorage: new Ec2BlockStorage({
      client: ec2,
      now: clock,
      limiter: new TokenBucketLimiter({ ratePerSecond: config.ec2MutatingCallsPerSecond, burst: config.ec2MutatingCallsPerSecond }),
      ...(overrides.ec2Wait === undefined ? {} : { wait: overrides.ec2Wait }),
    }),
  };
  const settings = {
    plan: config.plan, syncPeriodMs: config.syncPeriodMs, maxConcurrentOperations: config.maxConcurrentOperations,
    ...DEFAULT_WAITS, ...overrides.waits,
  };
  const depsFor = (passId: string): ReconcileDeps => ({
    ...ports, settings, clock, newId: randomUUID, log: telemetry.logger.createChild({ persistentKeys: { passId } }),
  });
  const observed = async (passId: string, label: Record<string, unknown>, run: (deps: ReconcileDeps) => Promise<PassReport>): Promise<PassReport> => {
    const deps = depsFor(passId);
    try {
      const report = await run(deps);
      recordPass(telemetry.metrics, report);
      deps.log.info('pass finished', { ...label, ...outline(report) });
      return report;
    } catch (error) {
      recordPassFailure(telemetry.metrics);
      deps.log.error('pass failed', { ...label, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  };
  return {
    ...telemetry,
    config,
    ports,
    fullPass: (budget, options = {}) => {
      const passId = options.passId ?? randomUUID();
      return observed(passId, { pass: 'full' }, (deps) => runFullPass(deps, budget, { ...options, passId }));
    },
    targetedPass: (target, budget, options = {}) => {
      const passId = options.passId ?? randomUUID();
      return observed(passId, { pass: 'targeted', target: targetKey(target) }, (deps) => runTargetedPass(deps, target, budget, { ...options, passId }));
    },
    close: async () => {
      await kubeClients.close();
      dynamo.destroy();
      ec2.destroy();
    },
  };
}

function kubeConfigOf(config: Config) {
  if (config.kube.kind === 'kubeconfig') return kubeConfigFromFile(config.kube.path);
  const token = eksTokenProvider({ clusterName: config.clusterName, region: config.region, credentials: defaultProvider() });
  return kubeConfigForEks({ clusterName: config.clusterName, endpoint: config.kube.endpoint, caData: config.kube.caData, token });
}

/** The log line that sums up a pass. */
function outline(report: PassReport): Record<string, unknown> {
  const count = (outcome: string) => report.results.filter((r) => r.outcome === outcome).length;
  return {
    durationMs: report.durationMs, converged: report.converged, clusterComplete: report.clusterComplete, verified: report.verified,
    actions: report.actions.length, ok: count('ok'), failed: count('failed'), deferred: count('deferred'), heldBack: report.heldBack.length,
    desired: report.desiredAttachments, actual: report.actualAttachments, problems: report.problems.length,
  };
}

let current: Controller | undefined;
let telemetry: Telemetry | undefined;

/** Logger and metrics of this cold start; they need no validated configuration, so they never throw. */
export function sharedTelemetry(): Telemetry {
  telemetry ??= createTelemetry({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'ebs-attach-detach',
    metricsNamespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    clusterName: process.env.CLUSTER_NAME ?? 'local',
    logLevel: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
  });
  return telemetry;
}

/** The controller of this cold start, built from the environment on first use. */
export function controller(runtime: Runtime = 'lambda'): Controller {
  current ??= createController(loadConfig(process.env, runtime), { telemetry: sharedTelemetry() });
  return current;
}

/** Tests and the CLI: use this controller from now on (undefined: rebuild from the environment next time). */
export function useController(next: Controller | undefined): void {
  current = next;
}
