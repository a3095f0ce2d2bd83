/**
 * The fault suite's servers, started once and reused by every seed: dynalite (with injectable
 * failures), the local EC2 on a manual clock and, per seed, a fresh local API server and a fresh
 * table. The controller's ports are the real adapters, built with test settings: one attempt per
 * SDK call (so injected faults reach the controller instead of being retried away), a fast
 * Kubernetes rate limit, two-item list pages (so pagination faults bite) and no waiting on EC2.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoVolumeStore } from '../../lambda/adapters/dynamodb/volume-store.js';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { createEc2Client } from '../../lambda/adapters/ec2/client.js';
import { createKubeClients, KubernetesCluster, kubeConfigFromFile, type KubeClients } from '../../lambda/adapters/kubernetes/index.js';
import { DEFAULT_PLAN_CONFIG } from '../../lambda/core/config.js';
import type { ReconcileSettings } from '../../lambda/reconcile/types.js';
import type { Ports } from '../../lambda/reconcile/types.js';
import { createVolumeTable } from '../../sandbox/dynamodb.js';
import { startLocalEc2, type LocalEc2 } from '../../sandbox/ec2/server.js';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { SteppedClock } from '../../sandbox/demo/harness/clock.js';
import { startMeteredDynamo, type MeteredDynamo } from '../../sandbox/demo/harness/dynamo.js';

const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'AKIDFAULTS', secretAccessKey: 'faults-secret' };

export const SETTINGS: ReconcileSettings = {
  plan: DEFAULT_PLAN_CONFIG, syncPeriodMs: 60_000, maxConcurrentOperations: 4,
  // A pass never waits for EC2 to finish: the next pass picks the operation up (time only moves between steps).
  maxAttachWaitMs: 0, maxDetachWaitMs: 0, reserveMs: 0,
};

/** A client timeout shorter than the latency the `timeout` fault injects. */
export const EC2_TIMEOUT_MS = 100;

export interface World {
  seed: number;
  clock: SteppedClock;
  ec2: LocalEc2;
  kube: KubeSandbox;
  dynamo: MeteredDynamo;
  ports: Ports;
  close(): Promise<void>;
}

export interface Rig {
  world(seed: number): Promise<World>;
  stop(): Promise<void>;
}

export async function startRig(): Promise<Rig> {
  const clock = new SteppedClock();
  const dynamo = await startMeteredDynamo();
  const ec2 = await startLocalEc2({ clock, throttle: false, delays: { attachMs: 1_000, detachMs: 1_000 } });
  const dynamoClient = new DynamoDBClient({ endpoint: dynamo.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
  const restoreEnv = pointEc2At(ec2.endpoint);
  const ec2Client = createEc2Client({ region: REGION, maxAttempts: 1, requestTimeoutMs: EC2_TIMEOUT_MS, credentials: CREDENTIALS });
  let tables = 0;
  return {
    async world(seed) {
      resetEc2(ec2);
      dynamo.clearFaults();
      dynamo.resetMeter();
      const kube = await startKubeSandbox();
      const tableName = `faults-${++tables}`;
      await createVolumeTable(dynamoClient, tableName);
      const kubeClients: KubeClients = createKubeClients(kubeConfigFromFile(kube.kubeconfigPath), {
        policy: { qps: 10_000, burst: 10_000, timeoutMs: 2_000, maxAttempts: 1 },
      });
      const ports: Ports = {
        cluster: new KubernetesCluster(kubeClients, { paging: { pageSize: 2 }, maxConflictRetries: 2, now: () => new Date(clock.now()) }),
        store: new DynamoVolumeStore({ client: dynamoClient, tableName, clock: () => clock.now() }),
        blockStorage: new Ec2BlockStorage({ client: ec2Client, now: () => clock.now(), sleep: () => Promise.resolve(), wait: { initialDelayMs: 1 } }),
      };
      return { seed, clock, ec2, kube, dynamo, ports, close: async () => {
        await kubeClients.close();
        await kube.stop();
      } };
    },
    async stop() {
      dynamoClient.destroy();
      ec2Client.destroy();
      await ec2.stop();
      await dynamo.stop();
      restoreEnv();
    },
  };
}

function resetEc2(ec2: LocalEc2): void {
  ec2.clearFaults();
  ec2.resetCounters();
  ec2.world.instances.clear();
  ec2.world.volumes.clear();
  ec2.world.clientTokens.clear();
  ec2.world.attachmentLimits.clear();
}

/** The EC2 client finds its endpoint in the environment, as in production (resolved at the first request). */
function pointEc2At(endpoint: string): () => void {
  const saved = process.env.AWS_ENDPOINT_URL_EC2;
  process.env.AWS_ENDPOINT_URL_EC2 = endpoint;
  return () => {
    if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_EC2;
    else process.env.AWS_ENDPOINT_URL_EC2 = saved;
  };
}
