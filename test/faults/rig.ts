/**
 * The fault suite's world: one local stack per seed (dynalite with injectable failures, the local
 * EC2 and the local Kubernetes API on a manual clock), and controllers built by the production
 * composition root. Every pass is its own execution environment — its own composition root, SDK
 * clients, caches and rate limiter — as concurrent Lambda invocations are, so nothing two passes
 * must agree on can hide in shared memory. The clients are tuned for fault injection: one attempt
 * per SDK call (injected faults reach the controller instead of being retried away), two-item
 * list pages (pagination faults bite) and no waiting on EC2. Nothing depends on real time or on the
 * machine's speed: the clock moves only when the scenario says, and the servers take requests in
 * turns (sandbox/turnstile.ts), so a seed runs the same on a loaded machine. Math.random stays
 * unseeded and no outcome may depend on it: dynalite shuffles every BatchGetItem answer with it, as
 * DynamoDB promises no order there (`npm run soak -- --random-seed N` runs the seeds on a seeded
 * stream, so two runs with different N show such a dependence). The local Kubernetes API speaks
 * plain HTTP here.
 * In attacher mode the stack also plays kube-controller-manager (sandbox/kcm), which creates and
 * deletes the VolumeAttachments the controller answers, stepped by the scenario like the kubelets.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { FENCE_REREAD_MS, type Controller } from '../../lambda/composition.js';
import type { Ports } from '../../lambda/composition.js';
import { ManualClock } from '../../sandbox/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import type { KubeSandbox } from '../../sandbox/kube/index.js';
import type { Kcm } from '../../sandbox/kcm/kcm.js';
import { localDynamoClient } from '../../sandbox/dynamodb.js';
import { GENERATED_CLUSTER } from '../../sandbox/cluster-tags.js';
import { startLocalStack, type LocalStack } from '../../sandbox/local-stack.js';
import type { MeteredDynamo } from '../../sandbox/metered-dynamo.js';
import { Turnstile } from '../../sandbox/turnstile.js';

/**
 * Longer than any seed runs: no fault relies on a real-time timeout (a lost answer is injected as a
 * dropped connection), and a request waits its turn (sandbox/turnstile.ts) for as long as the
 * machine takes to serve the ones before it. A hung request fails the test's own timeout instead.
 */
const REQUEST_TIMEOUT_MS = 30 * 60_000;

/** The controller's default maxWaitForUnmount, which the oracle holds it to. */
export const MAX_WAIT_FOR_UNMOUNT_MS = 360_000;
/** The controller's default mass-detach guard (MASS_DETACH_MAX_FRACTION, MASS_DETACH_MIN_ATTACHED), which the oracle holds it to. */
export const MASS_DETACH_RULE = { maxFraction: 0.5, minAttached: 10 };
/** The longest a crashed pass's lease can last: its 5-minute budget plus the default lease margin. */
export const LEASE_BOUND_MS = 5 * 60_000 + 15_000;

export type Mode = 'controller' | 'attacher';

/** How a theme's world differs from the usual one (attacher mode): a csi-attacher beside us, and the controller's settings. */
export interface StackChoice {
  /** A csi-attacher sidecar stands beside the controller (no SIDECAR_GONE): with LEASE_FENCE=on, the fence is at work. */
  sidecar?: boolean;
  env?: Record<string, string>;
}

/** The lease fence as the oracle judges it (A6): where the sidecar's Lease is, our identity, the re-read bound. */
export interface WorldFence {
  lease: { namespace: string; name: string };
  ours: string;
  boundMs: number;
}

export interface World {
  seed: number;
  mode: Mode;
  /** kcm's attach/detach controller, in attacher mode only. */
  kcm?: Kcm;
  clock: ManualClock;
  ec2: LocalEc2;
  kube: KubeSandbox;
  dynamo: MeteredDynamo;
  /** A client of the local EC2 that is not the controller's (a simulated sidecar's). */
  ec2Client: EC2Client;
  /** The lease fence, when the world runs it (LEASE_FENCE=on beside a sidecar). */
  fence?: WorldFence;
  /** Serves every request in turns; `drained()` waits for the last one (a killed pass's too). */
  turnstile: Pick<Turnstile, 'drained' | 'untimely' | 'untimelyAt'>;
  /** A new execution environment whose ports pass through `wrap` (e.g. to kill it mid-pass). */
  invocation(wrap?: (ports: Ports) => Ports): Controller;
  /** The volume table's items as stored (unmarshalled), read past the controller. */
  storeItems(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export interface Rig {
  world(seed: number, mode?: Mode, choice?: StackChoice): Promise<World>;
}

export function startRig(): Rig {
  return {
    async world(seed, mode = 'controller', choice = {}) {
      const clock = new ManualClock();
      const turnstile = new Turnstile();
      const stack: LocalStack = await startLocalStack({
        clock,
        turnstile,
        // Thousands of connections a run, none of them about TLS (the e2e and kubeconfig tests are):
        // plain HTTP saves a quarter of a seed's CPU.
        kubeTransport: 'http',
        // The generated cluster's resources carry this cluster's tags: the local EC2 holds the passes to the stack's role policy.
        clusterName: GENERATED_CLUSTER,
        ...(mode === 'attacher' ? { mode, simulateKcm: true } : {}),
        ...(choice.sidecar === true ? { sidecar: true } : {}),
        ec2: { throttle: false, delays: { attachMs: 1_000, detachMs: 1_000 } },
        env: { MAX_CONCURRENT_OPERATIONS: '4', ...choice.env },
        controller: {
          tuning: {
            ec2: { maxAttempts: 1, requestTimeoutMs: REQUEST_TIMEOUT_MS },
            dynamodb: { maxAttempts: 1 },
            kubernetes: {
              policy: { qps: 10_000, burst: 10_000, timeoutMs: REQUEST_TIMEOUT_MS, maxAttempts: 1 },
              paging: { pageSize: 2 },
              maxConflictRetries: 2,
            },
          },
          // A pass never waits for EC2 to finish: the next pass picks the operation up (time only moves between steps).
          waits: { maxAttachWaitMs: 0, maxDetachWaitMs: 0, reserveMs: 0 },
          ec2Wait: { initialDelayMs: 1 },
        },
      });
      let invocations = 0;
      const reader = localDynamoClient(stack.dynamo.endpoint);
      return {
        seed,
        mode,
        ...(stack.kcm === undefined ? {} : { kcm: stack.kcm }),
        clock,
        ec2: stack.ec2,
        kube: stack.kube,
        dynamo: stack.dynamo,
        ec2Client: stack.ec2Client,
        ...(choice.sidecar === true && stack.config.leaseFence !== undefined
          ? { fence: { lease: stack.config.sidecarLease, ours: stack.config.leaseFence.identity, boundMs: FENCE_REREAD_MS } }
          : {}),
        turnstile,
        invocation: (wrap) => {
          const id = ++invocations;
          let operations = 0;
          // Ids follow the seed and the invocation, so a seed's trace reads the same run after run.
          const newId = () => `seed${seed}-inv${id}-${++operations}`;
          return stack.invocation({ newId, ...(wrap === undefined ? {} : { wrapPorts: wrap }) });
        },
        storeItems: async () => {
          const items: Record<string, unknown>[] = [];
          let start: Record<string, never> | undefined;
          do {
            const page = await reader.send(new ScanCommand({ TableName: stack.tableName, ConsistentRead: true, ExclusiveStartKey: start }));
            items.push(...(page.Items ?? []).map((item) => unmarshall(item)));
            start = page.LastEvaluatedKey as Record<string, never> | undefined;
          } while (start);
          return items;
        },
        close: async () => {
          reader.destroy();
          await stack.stop();
          turnstile.stop();
        },
      };
    },
  };
}
