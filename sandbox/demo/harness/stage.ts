/**
 * The whole local world on loopback: dynalite (metered), the local EC2 and the local Kubernetes
 * API, the volume table, and a controller built by the real composition root pointed at them.
 * Everything it starts, `stop()` stops, in reverse order, whatever failed on the way.
 */
import { loadConfig } from '../../../lambda/config.js';
import { createController, sharedTelemetry, type Controller, type ControllerOverrides } from '../../../lambda/composition.js';
import { createVolumeTable, localDynamoClient } from '../../dynamodb.js';
import { startLocalEc2, type LocalEc2, type LocalEc2Options } from '../../ec2/server.js';
import { startKubeSandbox, type KubeSandbox } from '../../kube/index.js';
import { ApiLedger } from '../invariants/ledger.js';
import type { StoryClock } from './clock.js';
import { startMeteredDynamo, type MeteredDynamo } from './dynamo.js';

export interface StageOptions {
  clock: StoryClock;
  tableName?: string;
  ec2?: Omit<LocalEc2Options, 'clock'>;
  /** Controller environment on top of the stage's (e.g. LEASE_SECONDS, EC2_MUTATING_CALLS_PER_SECOND). */
  env?: Record<string, string>;
  overrides?: Omit<ControllerOverrides, 'clock'>;
}

export interface Stage {
  clock: StoryClock;
  ec2: LocalEc2;
  kube: KubeSandbox;
  dynamo: MeteredDynamo;
  ledger: ApiLedger;
  controller: Controller;
  /** The environment the controller was built from (a child process can build the same one). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startStage(options: StageOptions): Promise<Stage> {
  const stoppers: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch((error: unknown) => console.error('stopping:', error));
    stoppers.length = 0;
  };
  try {
    const dynamo = await startMeteredDynamo();
    stoppers.push(() => dynamo.stop());
    const ec2 = await startLocalEc2({ ...options.ec2, clock: options.clock });
    stoppers.push(() => ec2.stop());
    const kube = await startKubeSandbox();
    stoppers.push(() => kube.stop());
    const tableName = options.tableName ?? 'ebs-attach-detach-volumes';
    const client = localDynamoClient(dynamo.endpoint);
    await createVolumeTable(client, tableName).finally(() => client.destroy());
    const env = controllerEnv({ dynamo: dynamo.endpoint, ec2: ec2.endpoint, kubeconfig: kube.kubeconfigPath, tableName, extra: options.env ?? {} });
    stoppers.push(setEnv(env));
    const controller = createController(loadConfig(env, 'local'), { ...options.overrides, telemetry: sharedTelemetry(), clock: () => options.clock.now() });
    stoppers.push(() => controller.close());
    dynamo.resetMeter();
    return { clock: options.clock, ec2, kube, dynamo, ledger: new ApiLedger(ec2, kube), controller, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function controllerEnv(parts: { dynamo: string; ec2: string; kubeconfig: string; tableName: string; extra: Record<string, string> }): Record<string, string> {
  return {
    TABLE_NAME: parts.tableName, CLUSTER_NAME: 'demo', KUBECONFIG: parts.kubeconfig, AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: parts.dynamo, AWS_ENDPOINT_URL_EC2: parts.ec2,
    AWS_ACCESS_KEY_ID: 'AKIDLOCALSTAGE', AWS_SECRET_ACCESS_KEY: 'local-stage-secret',
    POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_DEV: 'false',
    ...parts.extra,
  };
}

/**
 * SDK clients resolve endpoints and credentials from the environment, some of it lazily on the
 * first request: the variables stay set until the stage stops, then the old values come back.
 */
function setEnv(env: Record<string, string>): () => Promise<void> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    return Promise.resolve();
  };
}
