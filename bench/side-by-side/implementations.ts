/**
 * What attaches and detaches in a side-by-side run, each as it runs in production:
 * - `watcher`: our watcher (one invocation through the composition root) and the full pass every
 *   minute (the schedule runs both);
 * - `today`: the full pass every minute, plus the event exporter's path: a pod's `Scheduled` event
 *   (and, in controller mode, its `Killing` event) delivered to the cluster-event handler as SQS
 *   would, at once (no exporter or queue delay counted: the most favourable case for it);
 * - `sidecar`: the csi-attacher with informers and the EBS CSI driver (sandbox/sidecar/informer.ts),
 *   with or without the driver's DescribeInstances batching (its Helm chart's default is on).
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { FULL_PASS_INPUT } from '../../lambda/handlers/contracts.js';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../../sandbox/events.js';
import { LOCAL_REGION } from '../../sandbox/dynamodb.js';
import type { Reaction } from '../../lambda/reconcile/watch/types.js';
import { startInformerSidecar } from '../../sandbox/sidecar/informer.js';
import type { Stage } from './stage.js';

export type Implementation = 'watcher' | 'today' | 'sidecar' | 'sidecar-batching';

/** Told of each pod the scene binds or deletes (the exporter's events for `today`). */
export interface Running {
  podBound(namespace: string, name: string, nodeName: string): void;
  podDeleted(namespace: string, name: string): void;
  /** Passes (or syncs) still running: the scene may only skip ahead in time when none is. */
  busy(): boolean;
  /** When the next full pass is due (clock ms), if this implementation runs one. */
  nextFullPassAt(): number | undefined;
  stop(): Promise<void>;
}

const FULL_PASS_PERIOD_MS = 60_000;

/** The schedule's full pass every minute of the stage's clock (a jump brings the next one at once). */
function everyMinute(stage: Stage, track: <T>(work: Promise<T>) => Promise<T>) {
  const handlers = stage.world.handlers();
  let next = stage.clock.now() + FULL_PASS_PERIOD_MS;
  let running = true;
  const loop = (async () => {
    while (running) {
      if (stage.clock.now() >= next) {
        next += FULL_PASS_PERIOD_MS;
        // A pass that outlives its invocation is an error of that invocation, as in Lambda; the schedule goes on.
        await track(handlers.scheduled(FULL_PASS_INPUT, lambdaContext(300_000, 'full-pass'))).catch((error: unknown) =>
          console.error(`full pass failed: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    nextAt: () => next,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function tracker() {
  let inFlight = 0;
  return {
    busy: () => inFlight > 0,
    track: async <T>(work: Promise<T>): Promise<T> => {
      inFlight += 1;
      try {
        return await work;
      } finally {
        inFlight -= 1;
      }
    },
  };
}

/** `onReaction`: told of each targeted pass the watcher ran (the churn trace). */
export function startImplementation(stage: Stage, implementation: Implementation, onReaction?: (reaction: Reaction) => void): Running {
  if (implementation === 'sidecar' || implementation === 'sidecar-batching')
    return startSidecar(stage, implementation === 'sidecar-batching');
  const { busy, track } = tracker();
  const fullPass = everyMinute(stage, track);
  if (implementation === 'watcher') {
    const abort = new AbortController();
    const controller = stage.world.invocation(onReaction === undefined ? {} : { watcher: { onReaction } });
    const endsAt = stage.clock.now() + 3_600_000;
    const watching = controller.watch({ deadline: endsAt, endsAt, signal: abort.signal });
    return {
      podBound: () => undefined,
      podDeleted: () => undefined,
      busy,
      // Never skipped ahead to: what the watcher misses waits for the full pass in real time.
      nextFullPassAt: () => undefined,
      stop: async () => {
        abort.abort();
        await watching;
        await fullPass.stop();
      },
    };
  }
  const handlers = stage.world.handlers();
  const event = (namespace: string, name: string, reason: string, message: string) =>
    void track(
      handlers.clusterEvent(
        sqsBatch([kubernetesEvent({ kind: 'Pod', namespace, name }, reason, message, stage.clock.now())]),
        lambdaContext(120_000, 'cluster-event'),
      ),
    );
  const controllerMode = stage.world.config.mode === 'controller';
  return {
    podBound: (namespace, name, nodeName) =>
      event(namespace, name, 'Scheduled', `Successfully assigned ${namespace}/${name} to ${nodeName}`),
    // The rule forwards Killing only in controller mode (attacher mode's rule takes Scheduled alone).
    podDeleted: (namespace, name) => (controllerMode ? event(namespace, name, 'Killing', `Stopping container ${name}`) : undefined),
    busy,
    nextFullPassAt: fullPass.nextAt,
    stop: () => fullPass.stop(),
  };
}

function startSidecar(stage: Stage, batching: boolean): Running {
  const ec2 = new EC2Client({
    region: LOCAL_REGION,
    endpoint: stage.world.ec2.endpoint,
    credentials: { accessKeyId: 'sidecar', secretAccessKey: 'sidecar' },
  });
  const sidecar = startInformerSidecar({ kube: stage.world.kube, ec2, clock: stage.clock, batching });
  const started = sidecar.start();
  return {
    podBound: () => undefined,
    podDeleted: () => undefined,
    busy: () => false,
    nextFullPassAt: () => undefined,
    stop: async () => {
      await started;
      await sidecar.stop();
      ec2.destroy();
    },
  };
}
