/** The public face of the sandbox: what `startKubeSandbox` returns. */
import type { ComponentClient } from './components.js';
import type { PaginationBreak, RequestMatch } from './faults.js';
import type { Kubelet } from './kubelet.js';
import type { LoggedRequest } from './request-log.js';
import type { RequestHook } from './request-hooks.js';
import type { Turnstile } from '../turnstile.js';
import type { WatchScheduler } from './watch.js';

export interface KubeSandboxOptions {
  /** 0 or absent: a free port chosen by the OS. */
  port?: number;
  /** Bearer token clients must send; random when absent. */
  token?: string;
  /** Where to write the kubeconfig; a fresh temporary file when absent (removed on stop). */
  kubeconfigPath?: string;
  /** Address to listen on (default 127.0.0.1); also added to the certificate's names. */
  host?: string;
  /** Compact (forget old revisions, expiring older continue tokens) this often; off when absent. */
  compactionIntervalMs?: number;
  /** Runs watch timeouts (`timeoutSeconds`); real timers when absent, a test's own to move time. */
  watchScheduler?: WatchScheduler;
  /** The clock the server stamps times with (creation, deletion, node conditions, taints); the wall clock when absent. */
  now?: () => Date;
  /** Serve requests in turns (sandbox/turnstile.ts), as a seeded run needs. */
  turnstile?: Turnstile;
  /**
   * `https` (default): TLS with a throwaway CA, as kubectl needs. `http`: plain HTTP (the kubeconfig
   * then skips TLS verification, which client-node requires for an http server), for runs that make
   * thousands of connections and test nothing of TLS (the fault suite).
   */
  transport?: 'https' | 'http';
}

interface SandboxFaults {
  failNext(match: RequestMatch, count: number, code: number, reason?: string): void;
  latency(ms: number, match?: RequestMatch): void;
  breakPagination(match: { path: string | RegExp }, options: PaginationBreak): void;
  clear(): void;
}

export interface KubeSandbox {
  url: string;
  token: string;
  kubeconfigPath: string;
  /** The CA the server's certificate chains to (empty over plain HTTP). */
  caPem: string;
  /** Objects with apiVersion/kind/metadata, stored as given (status included); namespace defaults to 'default'. */
  seed(objects: object[]): void;
  /** kind as 'Node', 'Pod', 'VolumeAttachment', 'Event' (plural and short names work too). */
  // Tests read arbitrary fields of fixtures, so these answer `any` as the brief specifies.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get(kind: string, namespace: string | undefined, name: string): any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  list(kind: string, namespace?: string): any[];
  /** The PV controller's part: bind claim `namespace/claim` and PV `volume` to each other. */
  bind(namespace: string, claim: string, volume: string): void;
  kubelet: Kubelet;
  /** Writes of other control-plane components (the simulated kube-controller-manager): validated, not logged. */
  components: ComponentClient;
  faults: SandboxFaults;
  requests(): LoggedRequest[];
  counters(): Record<string, number>;
  resetRequests(): void;
  /** Observes every API request just before it is served and once it is answered; returns the function that stops it. */
  onRequest(hook: RequestHook): () => void;
  /** Forgets old revisions as etcd compaction does: continue tokens from before the last write expire (410). */
  compact(): void;
  /** Every open watch goes silent without closing (a dropped flow); returns how many. */
  stallWatches(): number;
  /** The current global resourceVersion. */
  resourceVersion(): string;
  stop(): Promise<void>;
}
