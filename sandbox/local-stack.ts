/**
 * The whole controller on loopback, wired as production wires it: dynalite (metered) with the
 * volume table, the local EC2 and the local Kubernetes API on one clock, and controllers built by
 * the real composition root from a validated configuration. The e2e tests, the fault suite, the
 * demo and the bench all start here. Nothing here writes `process.env`: the configuration carries
 * the local endpoints and credentials to the SDK clients.
 *
 * Each `invocation()` is a separate execution environment, as Lambda runs them: its own composition
 * root, SDK clients and caches. What invocations must agree on (locks, device names, the EC2 budget) lives in the store.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { createController, type Controller, type ControllerOverrides } from '../lambda/composition.js';
import { loadConfig, type Config } from '../lambda/config.js';
import type { PassRunner } from '../lambda/handlers/middleware.js';
import { scheduledHandler } from '../lambda/handlers/scheduled-handler.js';
import { clusterEventHandler, ec2EventHandler } from '../lambda/handlers/sqs-handler.js';
import { watcherHandler } from '../lambda/handlers/watcher-handler.js';
import { RunningClock, type SandboxClock } from './clock.js';
import { clockTimers } from './clock-timers.js';
import { createVolumeTable, LOCAL_REGION, localDynamoClient } from './dynamodb.js';
import { startLocalEc2, type LocalEc2, type LocalEc2Options } from './ec2/server.js';
import { startKubeSandbox, type KubeSandbox } from './kube/index.js';
import { createKcm, type Kcm } from './kcm/kcm.js';
import { startMeteredDynamo, type MeteredDynamo } from './metered-dynamo.js';
import { ApiLedger } from './oracle/ledger.js';
import type { Turnstile } from './turnstile.js';
import type { IamModel } from './ec2/iam/authorize.js';
import { controllerPrincipal, SHARED_EVALUATOR, type StackPolicyOptions } from './stack-policy.js';

/** The controller's credentials: the local EC2 holds them to the stack's role policy. */
export const CONTROLLER_CREDENTIALS = { accessKeyId: 'AKIDLOCALSTACK', secretAccessKey: 'local-stack-secret' };
/** The sandbox's own setup (instances, volumes, tags) and assertions: an administrator, as an operator would be. */
const SETUP_CREDENTIALS = { accessKeyId: 'AKIDSANDBOXSETUP', secretAccessKey: 'sandbox-setup-secret' };

export interface LocalStackOptions {
  /** Shared by the controller, the local EC2 and the kubelet; real time by default. */
  clock?: SandboxClock;
  ec2?: Omit<LocalEc2Options, 'clock'>;
  tableName?: string;
  clusterName?: string;
  /** The operating mode (OPERATING_MODE): `attacher` when kcm's attach/detach controller decides, as on EKS. */
  mode?: 'controller' | 'attacher';
  /** Controller settings on top of the stack's (e.g. LEASE_MARGIN_SECONDS, EC2_ATTACH_VOLUME_RATE). */
  env?: Record<string, string>;
  /** Seams every invocation gets (the clock is always the stack's). */
  controller?: Omit<ControllerOverrides, 'clock'>;
  /** Play kube-controller-manager's attach/detach controller (attacher mode): `stack.kcm.step()` between passes. */
  simulateKcm?: boolean;
  /** Every server takes its requests in turns (sandbox/turnstile.ts): a seeded run then depends on its code alone. */
  turnstile?: Turnstile;
  /** The local Kubernetes API's transport (sandbox/kube: `https` by default). */
  kubeTransport?: 'https' | 'http';
  /**
   * The local EC2 holds the controller to the role policy the stack synthesizes for these settings
   * (on by default: tags and KMS keys must be as a real account needs them); `false` lets it do everything.
   */
  iam?: false | Pick<StackPolicyOptions, 'volumeTags' | 'instanceTags' | 'kmsKeyArns'>;
  /**
   * A csi-attacher sidecar runs beside the controller (the test starts one, sandbox/sidecar/). Without
   * it no csi-attacher runs here, and an attacher-mode stack says so (SIDECAR_GONE=true), as an
   * operator who removed the sidecar would; with it, the controller must be fenced or a shadow.
   */
  sidecar?: boolean;
}

export interface Handlers {
  scheduled: ReturnType<typeof scheduledHandler>;
  clusterEvent: ReturnType<typeof clusterEventHandler>;
  ec2Event: ReturnType<typeof ec2EventHandler>;
  watcher: ReturnType<typeof watcherHandler>;
}

export interface LocalStack {
  clock: SandboxClock;
  dynamo: MeteredDynamo;
  ec2: LocalEc2;
  kube: KubeSandbox;
  /** The calls the servers saw, for the invariant oracle and the summaries. */
  ledger: ApiLedger;
  /** A client of the local EC2 for setup and assertions (not the controller's). */
  ec2Client: EC2Client;
  tableName: string;
  region: string;
  /** The controller's environment: what a Lambda (or a child process, or the CLI) would be given. */
  env: Record<string, string>;
  config: Config;
  /** The first execution environment. */
  controller: Controller;
  /**
   * Another execution environment: its own composition root, clients and caches; the EC2 budget is
   * the store's. `env`: settings on top of the stack's, as a redeploy with other settings gives them.
   */
  invocation(overrides?: Omit<ControllerOverrides, 'clock'>, env?: Record<string, string>): Controller;
  /** The real Lambda handlers, wired to `runner` (default: the first execution environment). */
  handlers(runner?: PassRunner & Pick<Controller, 'watch'>): Handlers;
  /** The simulated kube-controller-manager, when `simulateKcm` asked for it. */
  kcm?: Kcm;
  stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stoppers: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch((error: unknown) => console.error('stopping:', error));
    stoppers.length = 0;
  };
  try {
    const clock = options.clock ?? new RunningClock();
    const turns = options.turnstile === undefined ? {} : { turnstile: options.turnstile };
    const dynamo = await startMeteredDynamo(turns);
    stoppers.push(() => dynamo.stop());
    const clusterName = options.clusterName ?? 'local';
    const iam = options.iam === false ? undefined : await iamModel({ clusterName, mode: options.mode ?? 'controller', ...options.iam });
    const ec2 = await startLocalEc2({ ...options.ec2, ...turns, clock, ...(iam === undefined ? {} : { iam }) });
    stoppers.push(() => ec2.stop());
    // Watch deadlines and bookmarks run on the stack's clock, like every other timed thing here.
    const kube = await startKubeSandbox({
      now: () => new Date(clock.now()),
      watchScheduler: clockTimers(clock),
      ...turns,
      ...(options.kubeTransport === undefined ? {} : { transport: options.kubeTransport }),
    });
    stoppers.push(() => kube.stop());
    const tableName = options.tableName ?? 'ebs-attach-detach-volumes';
    const setup = localDynamoClient(dynamo.endpoint);
    await createVolumeTable(setup, tableName).finally(() => setup.destroy());
    const ec2Client = new EC2Client({ region: LOCAL_REGION, endpoint: ec2.endpoint, credentials: SETUP_CREDENTIALS });
    stoppers.push(() => Promise.resolve(ec2Client.destroy()));
    const env = controllerEnv(options, { dynamo: dynamo.endpoint, ec2: ec2.endpoint, kubeconfig: kube.kubeconfigPath, tableName });
    const config = loadConfig(env, 'local');
    // The watcher idles on the stack's clock: a jump wakes it, as it wakes every other timed thing.
    const timers = clockTimers(clock);
    const idle = (ms: number) => new Promise<void>((resolve) => timers(ms, resolve));
    const invocation = (overrides: Omit<ControllerOverrides, 'clock'> = {}, extra?: Record<string, string>) => {
      const settings = extra === undefined ? config : loadConfig({ ...env, ...extra }, 'local');
      const watcher = { idle, ...options.controller?.watcher, ...overrides.watcher };
      const controller = createController(settings, { ...options.controller, ...overrides, watcher, clock });
      stoppers.push(() => controller.close());
      return controller;
    };
    const controller = invocation();
    dynamo.resetMeter();
    const handlers = (runner: PassRunner & Pick<Controller, 'watch'> = controller): Handlers => ({
      scheduled: scheduledHandler(runner),
      clusterEvent: clusterEventHandler(runner),
      ec2Event: ec2EventHandler(runner),
      watcher: watcherHandler(runner),
    });
    return {
      clock,
      dynamo,
      ec2,
      kube,
      ledger: new ApiLedger(ec2, kube),
      ec2Client,
      tableName,
      region: LOCAL_REGION,
      env,
      config,
      controller,
      invocation,
      handlers,
      ...(options.simulateKcm ? { kcm: createKcm(kube, clock) } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function controllerEnv(
  options: LocalStackOptions,
  parts: { dynamo: string; ec2: string; kubeconfig: string; tableName: string },
): Record<string, string> {
  return {
    TABLE_NAME: parts.tableName,
    CLUSTER_NAME: options.clusterName ?? 'local',
    KUBECONFIG: parts.kubeconfig,
    AWS_REGION: LOCAL_REGION,
    AWS_ENDPOINT_URL_DYNAMODB: parts.dynamo,
    AWS_ENDPOINT_URL_EC2: parts.ec2,
    AWS_ACCESS_KEY_ID: CONTROLLER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CONTROLLER_CREDENTIALS.secretAccessKey,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    // The tags the role requires and the keys it may grant on, as the stack would set them (the defaults when unset).
    ...(options.iam ? tagSettings(options.iam) : {}),
    ...(options.mode === undefined ? {} : { OPERATING_MODE: options.mode }),
    ...(options.mode === 'attacher' && options.sidecar !== true ? { SIDECAR_GONE: 'true' } : {}),
    ...options.env,
  };
}

function tagSettings(iam: Pick<StackPolicyOptions, 'volumeTags' | 'instanceTags' | 'kmsKeyArns'>): Record<string, string> {
  return {
    ...(iam.volumeTags === undefined ? {} : { VOLUME_TAGS: iam.volumeTags }),
    ...(iam.instanceTags === undefined ? {} : { INSTANCE_TAGS: iam.instanceTags }),
    ...(iam.kmsKeyArns === undefined || iam.kmsKeyArns.length === 0 ? {} : { KMS_KEY_ARNS: iam.kmsKeyArns.join(',') }),
  };
}

async function iamModel(options: StackPolicyOptions): Promise<IamModel> {
  const principal = await controllerPrincipal(options);
  return { principals: new Map([[CONTROLLER_CREDENTIALS.accessKeyId, principal]]), evaluator: SHARED_EVALUATOR, region: LOCAL_REGION };
}
