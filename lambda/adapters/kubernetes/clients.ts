/**
 * The client-node API objects the adapter uses, built once per cold start from a
 * `KubeConfig`: authentication from the kubeconfig (or EKS token), every request through
 * `PolicyHttpLibrary`, and one connection pool for all of them.
 */
import {
  CoordinationV1Api,
  CoreV1Api,
  ServerConfiguration,
  StorageV1Api,
  createConfiguration,
  setHeaderMiddleware,
  type KubeConfig,
  type RequestContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import type { Clock } from '../../clock.js';
import { jsonGetter, type JsonGet } from './json-get.js';
import { PolicyHttpLibrary, type RequestPolicy, type RetryNotice, DEFAULT_REQUEST_POLICY } from './request-policy.js';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

const USER_AGENT = 'ebs-attach-detach-controller';

/**
 * client-node's `KubeConfig.applySecurityAuthentication` builds a new undici Agent (its own
 * TLS connections) for every request. We keep the first one and hand it to every later
 * request, so a pass reuses keep-alive connections instead of handshaking per call. The
 * TLS settings come from the same kubeconfig, so the first agent fits every request.
 */
class PooledKubeConfigAuth implements SecurityAuthentication {
  private pool: Dispatcher | undefined;

  constructor(private readonly kc: KubeConfig) {}

  getName(): string {
    return 'kubeconfig, one connection pool';
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.kc.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    if (fresh === undefined) return;
    if (this.pool === undefined) {
      this.pool = fresh;
    } else if (fresh !== this.pool) {
      context.setDispatcher(this.pool);
      void fresh.close();
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}

export interface KubeClientOptions {
  /** Paces and times requests (rate limit, timeouts, retry delays); `random` jitters the retry delays. */
  clock: Clock & { random?(): number };
  policy?: Partial<RequestPolicy>;
  onRetry?: (notice: RetryNotice) => void;
}

export interface KubeClients {
  core: CoreV1Api;
  storage: StorageV1Api;
  /** Leases: the lease fence (docs/lease-fence.md). */
  coordination: CoordinationV1Api;
  /** Reads as plain JSON (the lists and reads of a pass); the typed APIs above are for writes. */
  getJson: JsonGet;
  /** The configuration itself: client-node's `Watch` opens its streams from it. */
  kubeConfig: KubeConfig;
  /** Closes pooled connections (tests and CLI runs; a Lambda keeps them for the next invocation). */
  close(): Promise<void>;
}

export function createKubeClients(kc: KubeConfig, options: KubeClientOptions): KubeClients {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig has no current cluster');
  const auth = new PooledKubeConfigAuth(kc);
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server.replace(/\/+$/, ''), {}),
    authMethods: { default: auth },
    httpApi: new PolicyHttpLibrary(
      { ...DEFAULT_REQUEST_POLICY, ...options.policy },
      { now: () => options.clock.now(), sleep: (ms) => options.clock.sleep(ms), random: () => options.clock.random?.() ?? Math.random() },
      undefined,
      options.onRetry,
    ),
    middleware: [setHeaderMiddleware('User-Agent', USER_AGENT)],
  });
  return {
    core: new CoreV1Api(configuration),
    storage: new StorageV1Api(configuration),
    coordination: new CoordinationV1Api(configuration),
    getJson: jsonGetter(configuration, USER_AGENT),
    kubeConfig: kc,
    close: () => auth.close(),
  };
}
