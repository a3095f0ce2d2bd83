/**
 * The local EC2: an HTTP server speaking the EC2 Query protocol, so the real SDK client (or the
 * AWS CLI with --endpoint-url) talks to it unchanged. `startLocalEc2()` listens on a free port.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, RunningClock } from '../clock.js';
import type { Clock } from './clock.js';
import { handleControl, type Ec2Controls } from './control.js';
import { Counters, type CounterSnapshot, type RecordedRequest } from './counters.js';
import { Faults, type FailureSpec } from './faults.js';
import { ActionHooks, type ActionHook } from './hooks.js';
import { dispatch } from './protocol/dispatch.js';
import { settle } from './state/lifecycle.js';
import { DEFAULT_MODEL_CONFIG, World, type Delays, type ModelConfig } from './state/model.js';
import type { Turnstile } from '../turnstile.js';
import { EC2_THROTTLE, Throttle, type ThrottleConfig } from './throttle.js';
import type { IamModel } from './iam/authorize.js';

export interface LocalEc2Options {
  /** 0 (default): a free port chosen by the OS. */
  port?: number;
  host?: string;
  clock?: Clock;
  delays?: Partial<Delays>;
  model?: Partial<Omit<ModelConfig, 'delays'>>;
  /** EC2's buckets by default; `false` disables throttling. */
  throttle?: Partial<ThrottleConfig> | false;
  /** Serve requests in turns (sandbox/turnstile.ts), as a seeded run needs. */
  turnstile?: Turnstile;
  /** IAM in front of EC2 for the principals it names (iam/authorize.ts); unset: every credential may do everything. */
  iam?: IamModel;
}

export interface LocalEc2 extends Ec2Controls {
  /** `http://host:port`, for the SDK's `endpoint` or `AWS_ENDPOINT_URL_EC2`. */
  endpoint: string;
  port: number;
  clock: Clock;
  /** The model itself, for assertions and setup; settle() first to see current states. */
  world: World;
  settle(): number;
  /** Observes every action EC2 carries out, just before and after it changes the world; returns the function that stops it. */
  onAction(hook: ActionHook): () => void;
  stop(): Promise<void>;
}

function throttleConfig(option: LocalEc2Options['throttle']): ThrottleConfig | false {
  return option === false ? false : { ...EC2_THROTTLE, ...option };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startLocalEc2(options: LocalEc2Options = {}): Promise<LocalEc2> {
  const clock = options.clock ?? new RunningClock();
  const config: ModelConfig = { ...DEFAULT_MODEL_CONFIG, ...options.model, delays: { ...DEFAULT_MODEL_CONFIG.delays, ...options.delays } };
  const world = new World(config, clock);
  const faults = new Faults();
  const counters = new Counters();
  const hooks = new ActionHooks();
  const throttle = new Throttle(clock, throttleConfig(options.throttle));
  const controls: Ec2Controls = {
    counters: (): CounterSnapshot => counters.snapshot(),
    resetCounters: () => counters.reset(),
    requests: (action?: string): RecordedRequest[] => counters.requests(action),
    failNext: (spec: FailureSpec) => faults.failNext(spec),
    setLatency: (action, ms) => faults.setLatency(action, ms),
    loseAnswers: (action, count) => faults.loseAnswers(action, count),
    lagReads: (ms, volumeId) => faults.lagReads(ms, volumeId),
    stickAttach: (volumeId = '*') => void world.sticky.attach.add(volumeId),
    stickDetach: (volumeId = '*') => void world.sticky.detach.add(volumeId),
    clearFaults: () => {
      faults.clear();
      world.sticky.attach.clear();
      world.sticky.detach.clear();
    },
    setAttachmentLimit: (instanceId, limit) => void world.attachmentLimits.set(instanceId, limit),
    configureThrottle: (change) => throttle.configure(throttleConfig(change)),
    advanceClock: (ms) => {
      if (!(clock instanceof ManualClock)) throw new Error('the clock is not a ManualClock; it cannot be advanced');
      return clock.advance(ms);
    },
  };

  const server = createServer((request, response) => {
    void readBody(request)
      .then(async (body) => {
        const url = new URL(request.url ?? '/', 'http://local');
        if (url.pathname.startsWith('/_control/')) return handleControl(controls, request, body, response);
        const reply = await dispatch(
          { world, faults, throttle, counters, hooks, ...(options.iam === undefined ? {} : { iam: options.iam }) },
          { body, query: url.search.slice(1), authorization: request.headers.authorization },
        );
        if (reply.lost) return void request.socket.destroy();
        response.writeHead(reply.status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': reply.requestId });
        response.end(reply.body);
      })
      .catch((error: unknown) => {
        // A broken request stream: answer if still possible, never crash the server.
        console.error('local EC2: request failed', error);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  options.turnstile?.gate(server);
  const { port } = server.address() as AddressInfo;
  return {
    ...controls,
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    clock,
    world,
    settle: () => settle(world),
    onAction: (hook) => hooks.add(hook),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
